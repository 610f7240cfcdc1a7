import { afterEach, describe, expect, it } from 'vitest';

import { statusClass } from '../../src/metrics/bridge-metrics.ts';
import { createPrometheusMetrics } from '../../src/metrics/prometheus-metrics.ts';
import type { Store } from '../../src/store/types.ts';
import { captureLogs } from '../support/log-capture.ts';
import { type Engine, openRealStore } from '../support/real-store.ts';
import { describeEachEngine } from '../support/stored-state.ts';
import { sampleValue } from './support/prom-text.ts';

const closes: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closes.splice(0)) await close();
});

async function realStore(engine: Engine): Promise<Store> {
  const { store, close } = await openRealStore(engine, 'queue_gauges');
  closes.push(close);
  return store;
}

describeEachEngine('queue gauges (store.stats at scrape time)', (engine) => {
  it('when jobs are pending, then depth by kind and state and the oldest pending age come from the store', async () => {
    const store = await realStore(engine);
    const createdAt = Date.now();
    await store.enqueue([
      { kind: 'remap', payload: { n: 1 } },
      { kind: 'remap', payload: { n: 2 } },
      { kind: 'import', payload: { n: 3 } },
    ]);
    const { exposition } = createPrometheusMetrics({ logger: captureLogs().logger, store });

    const text = await exposition.render();

    expect(sampleValue(text, 'bridge_store_up')).toBe(1);
    expect(sampleValue(text, 'bridge_jobs', { kind: 'remap', state: 'pending' })).toBe(2);
    expect(sampleValue(text, 'bridge_jobs', { kind: 'import', state: 'pending' })).toBe(1);
    expect(sampleValue(text, 'bridge_jobs', { kind: 'remap', state: 'dead' })).toBe(0);
    const age = sampleValue(text, 'bridge_oldest_pending_job_age_seconds', { kind: 'remap' });
    expect(age).toBeGreaterThanOrEqual(0);
    expect(age).toBeLessThanOrEqual((Date.now() - createdAt) / 1000 + 1);
  });

  it('when the store cannot answer, then the scrape still succeeds with bridge_store_up 0 and no stale queue numbers, and recovers by itself', async () => {
    const real = await realStore(engine);
    await real.enqueue([{ kind: 'remap', payload: { n: 1 } }]);
    let down = true;
    const store = { stats: (now?: number) => (down ? Promise.reject(new Error('database is unreachable')) : real.stats(now)) };
    const logs = captureLogs();
    const { exposition } = createPrometheusMetrics({ logger: logs.logger, store });

    const during = await exposition.render();
    down = false;
    const after = await exposition.render();

    expect(sampleValue(during, 'bridge_store_up')).toBe(0);
    expect(sampleValue(during, 'bridge_jobs', { kind: 'remap', state: 'pending' })).toBeUndefined();
    expect(logs.lines().some((line) => line.message === 'metrics: store stats unavailable')).toBe(true);
    expect(sampleValue(after, 'bridge_store_up')).toBe(1);
    expect(sampleValue(after, 'bridge_jobs', { kind: 'remap', state: 'pending' })).toBe(1);
  });
});

describe('metrics registries', () => {
  it('when two bridges live in one process, then each has its own registry and counts only its own events', async () => {
    const logger = captureLogs().logger;
    const one = createPrometheusMetrics({ logger });
    const two = createPrometheusMetrics({ logger });

    one.metrics.inboundMessage('salesforce', 'acked');

    expect(sampleValue(await one.exposition.render(), 'bridge_inbound_messages_total', { source: 'salesforce', outcome: 'acked' })).toBe(1);
    expect(sampleValue(await two.exposition.render(), 'bridge_inbound_messages_total', { source: 'salesforce' })).toBeUndefined();
  });
});

describe('statusClass', () => {
  it.each([
    [{ status: 200 }, '2xx'],
    [{ status: 200, errorClass: 'rejected' }, '2xx'],
    [{ status: 429, errorClass: 'http_4xx' }, '4xx'],
    [{ status: 503, errorClass: 'http_5xx' }, '5xx'],
    [{ errorClass: 'network' }, 'network'],
    [{ errorClass: 'timeout' }, 'timeout'],
    [{ errorClass: 'aborted' }, 'aborted'],
    [{ errorClass: 'salesforce_lookup' }, 'error'],
    [{ errorClass: 'invalid_request' }, 'error'],
    [{}, 'ok'],
  ])('when an attempt is %j, then its class is %s', (fields, expected) => {
    expect(statusClass({ startedAt: 0, durationMs: 1, ...fields })).toBe(expected);
  });
});
