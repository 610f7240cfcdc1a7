import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';

import { createPrometheusMetrics } from '../../src/metrics/prometheus-metrics.ts';
import type { Store } from '../../src/store/types.ts';
import { KEY } from '../admin/support/admin-app.ts';
import { type EngineApp, startEngineApp } from '../support/app-harness.ts';

/*
 * ADMIN_AUTH_FAILURE_LIMIT counts failed authentications only, at the moment they fail. A burst
 * of requests with the right key, all in flight at once, is never refused; guesses are counted
 * one by one however many arrive together; an address past the limit is refused even with the
 * right key; admin keys and the metrics token share one budget per address.
 */

const TOKEN = 'scrape-token-0123456789abcdef';
const CONCURRENT = 30;

/**
 * Resolves every waiter once `count` of them are waiting: the requests are provably in flight
 * together. If fewer ever arrive (some were refused before reaching the handler), it opens after
 * two seconds, so the test fails on the statuses rather than on its timeout.
 */
function barrier(count: number): () => Promise<void> {
  let waiting = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return () => {
    waiting += 1;
    if (waiting === 1) setTimeout(open, 2000).unref();
    if (waiting >= count) open();
    return opened;
  };
}

/** The store with `stats` (GET /admin/stats) held at a barrier of `count` requests. */
function heldStats(store: Store, count: number): Store {
  const wait = barrier(count);
  return new Proxy(store, {
    get(target, property) {
      if (property === 'stats') return async (now?: number) => (await wait(), target.stats(now));
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

let harness: EngineApp | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function start(options: { held?: number } = {}) {
  harness = await startEngineApp('sqlite', {
    env: { ADMIN_API_KEYS: KEY, ADMIN_AUTH_FAILURE_LIMIT: '20/15m', METRICS_TOKEN: TOKEN },
    deps: (store, logger) => {
      const metrics = createPrometheusMetrics({ logger });
      const scrapes = barrier(options.held ?? 1);
      return {
        store: options.held === undefined ? store : heldStats(store, options.held),
        metrics: {
          ...metrics,
          exposition: { contentType: metrics.exposition.contentType, render: async () => (await scrapes(), metrics.exposition.render()) },
        },
      };
    },
  });
  return harness;
}

const stats = (h: EngineApp, key: string) => request(h.app).get('/admin/stats').set('Authorization', `Bearer ${key}`);
const scrape = (h: EngineApp, token: string) => request(h.app).get('/metrics').set('Authorization', `Bearer ${token}`);
const statuses = (responses: Array<{ status: number }>) => responses.map((response) => response.status);

describe('ADMIN_AUTH_FAILURE_LIMIT counts only failed authentications', () => {
  it(`when ${CONCURRENT} requests with a valid admin key are in flight at once (limit 20), then every one succeeds`, async () => {
    const h = await start({ held: CONCURRENT });

    const responses = await Promise.all(Array.from({ length: CONCURRENT }, () => stats(h, KEY)));

    expect(statuses(responses)).toEqual(Array(CONCURRENT).fill(200));
  });

  it(`when ${CONCURRENT} scrapes with the right metrics token are in flight at once (limit 20), then every one succeeds`, async () => {
    const h = await start({ held: CONCURRENT });

    const responses = await Promise.all(Array.from({ length: CONCURRENT }, () => scrape(h, TOKEN)));

    expect(statuses(responses)).toEqual(Array(CONCURRENT).fill(200));
  });

  it('when 21 wrong keys arrive together after a burst of good ones, then 20 get 401, the 21st 429, and the address is then refused even with the right key', async () => {
    const h = await start();
    expect(statuses(await Promise.all(Array.from({ length: CONCURRENT }, () => stats(h, KEY))))).toEqual(Array(CONCURRENT).fill(200));

    const guesses = await Promise.all(Array.from({ length: 21 }, (_, n) => stats(h, `guess-${n}`)));
    const withKey = await stats(h, KEY);

    expect(statuses(guesses).sort()).toEqual([...Array(20).fill(401), 429]);
    const refused = guesses.find((response) => response.status === 429)!;
    expect(refused.body.error.code).toBe('too_many_auth_failures');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(14 * 60);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
    expect(withKey.status).toBe(429);
  });

  it('when an address guesses admin keys and the metrics token alike, then both count against one budget', async () => {
    const h = await start();

    const adminGuesses = await Promise.all(Array.from({ length: 10 }, (_, n) => stats(h, `guess-${n}`)));
    const tokenGuesses = await Promise.all(Array.from({ length: 10 }, (_, n) => scrape(h, `guess-${n}`)));
    const next = [await scrape(h, TOKEN), await stats(h, KEY)];

    expect([...statuses(adminGuesses), ...statuses(tokenGuesses)]).toEqual(Array(20).fill(401));
    expect(statuses(next)).toEqual([429, 429]);
  });
});
