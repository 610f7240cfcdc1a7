import { afterEach, describe, expect, it } from 'vitest';

import { type RefusalFlush, startRefusalFlush } from '../../src/http/refusals/refusal-flush.ts';
import { createRefusalTally } from '../../src/http/refusals/refusal-tally.ts';
import type { RefusalBatch, RefusalKeep, RefusalStore } from '../../src/store/types.ts';
import { captureLogs } from '../support/log-capture.ts';
import { waitFor } from '../support/wait-for.ts';

/*
 * The in-memory tally and its flush, against a recording store: what one write carries, how few
 * writes a flood costs, and that no count is lost to a failed write or to a stop.
 */

const T0 = Date.parse('2026-03-02T16:00:30.000Z');

function recordingStore(options: { failFirst?: boolean } = {}) {
  const writes: Array<{ batch: RefusalBatch; keep: RefusalKeep }> = [];
  let fail = options.failFirst ?? false;
  const store: RefusalStore = {
    async record(batch, keep) {
      if (fail) {
        fail = false;
        throw new Error('database unreachable');
      }
      writes.push({ batch, keep });
    },
    totals: async () => ({ counts: [], examples: [] }),
  };
  return { store, writes };
}

let flush: RefusalFlush | undefined;
afterEach(async () => {
  await flush?.stop();
  flush = undefined;
});

describe('refusal tally and flush', () => {
  it('when 1 000 requests are refused in one minute, then one write carries one count and the five newest examples', async () => {
    const tally = createRefusalTally();
    const { store, writes } = recordingStore();
    flush = startRefusalFlush({ tally, store, logger: captureLogs().logger, everyMs: 60_000, now: () => T0 });

    for (let n = 0; n < 1000; n += 1) tally.record({ route: '/calendar/events', reason: 'invalid_signature', sender: `10.0.${n >> 8}.${n & 255}`, at: T0 + n });
    await flush.flush();

    expect(writes).toHaveLength(1);
    expect(writes[0]?.batch.buckets).toEqual([
      { route: '/calendar/events', reason: 'invalid_signature', bucketStart: Date.parse('2026-03-02T16:00:00.000Z'), count: 1000, lastAt: T0 + 999 },
    ]);
    expect(writes[0]?.batch.examples.map((example) => example.at)).toEqual([T0 + 999, T0 + 998, T0 + 997, T0 + 996, T0 + 995]);
    expect(writes[0]?.keep).toEqual({ examples: 5, since: T0 - 48 * 3_600_000 });
    expect(tally.pending()).toEqual({ buckets: [], examples: [] });
  });

  it('when nothing was refused, then a flush writes nothing', async () => {
    const { store, writes } = recordingStore();
    flush = startRefusalFlush({ tally: createRefusalTally(), store, logger: captureLogs().logger, everyMs: 60_000 });

    await flush.flush();

    expect(writes).toEqual([]);
  });

  it('when a write fails, then its counts are kept and the next flush writes them with the newer ones', async () => {
    const tally = createRefusalTally();
    const { store, writes } = recordingStore({ failFirst: true });
    flush = startRefusalFlush({ tally, store, logger: captureLogs().logger, everyMs: 60_000, now: () => T0 });
    tally.record({ route: '/recordings/zoom/events', reason: 'invalid_signature', sender: '192.0.2.1', at: T0 });

    await expect(flush.flush()).rejects.toThrow('database unreachable');
    tally.record({ route: '/recordings/zoom/events', reason: 'invalid_signature', sender: '192.0.2.2', at: T0 + 1 });
    await flush.flush();

    expect(writes).toHaveLength(1);
    expect(writes[0]?.batch.buckets.map((bucket) => bucket.count)).toEqual([2]);
    expect(writes[0]?.batch.examples.map((example) => example.sender).sort()).toEqual(['192.0.2.1', '192.0.2.2']);
  });

  it('when the timer fires, then what was counted is written without being asked, and the flush is logged at debug', async () => {
    const tally = createRefusalTally();
    const { store, writes } = recordingStore();
    const logs = captureLogs();
    flush = startRefusalFlush({ tally, store, logger: logs.logger, everyMs: 20 });

    tally.record({ route: '/calendar/google/notifications', reason: 'unknown_channel', sender: '192.0.2.9', at: Date.now() });
    await waitFor('a timer flush', () => writes.length === 1);

    expect(await logs.waitForLine((line) => line.message === 'refusals stored')).toMatchObject({ level: 'debug', refused: 1, buckets: 1, examples: 1 });
  });

  it('when stopped, then the timer ends and what was left is written once more', async () => {
    const tally = createRefusalTally();
    const { store, writes } = recordingStore();
    const stopping = startRefusalFlush({ tally, store, logger: captureLogs().logger, everyMs: 60_000 });
    tally.record({ route: '/salesforce/outbound-message', reason: 'org_not_allowed', sender: '192.0.2.3', at: Date.now() });

    await stopping.stop();
    tally.record({ route: '/salesforce/outbound-message', reason: 'org_not_allowed', sender: '192.0.2.4', at: Date.now() });

    expect(writes).toHaveLength(1);
    expect(writes[0]?.batch.examples.map((example) => example.sender)).toEqual(['192.0.2.3']);
  });
});
