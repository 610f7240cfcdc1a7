import { describe, expect, it } from 'vitest';

import type { Refusal, RefusalBatch } from '../../src/store/types.ts';
import { type StoreHarness, T0, useFixture } from './conformance-fixture.ts';

/*
 * Refused inbound requests: what a flush adds (counts added to the same minute's row, by any
 * instance), what it prunes (examples to the newest few per route and reason, rows past the kept
 * hours), and the totals the admin reads.
 */

const MINUTE = 60_000;
const ROUTE = '/calendar/events';
const example = (reason: string, sender: string, at: number, route = ROUTE): Refusal => ({ route, reason, sender, at });
const batch = (buckets: RefusalBatch['buckets'], examples: Refusal[]): RefusalBatch => ({ buckets, examples });
const keepAll = { examples: 5, since: 0 };

export function refusalConformance(harness: StoreHarness): void {
  describe('refused inbound requests', () => {
    const fixture = useFixture(harness);

    it('when two flushes count the same minute, then their counts add up in one row and the later time is the last', async () => {
      const { store, reopen } = await fixture.fresh();
      const other = await reopen();

      await store.refusals.record(batch([{ route: ROUTE, reason: 'invalid_signature', bucketStart: T0, count: 3, lastAt: T0 + 5_000 }], []), keepAll);
      await other.refusals.record(batch([{ route: ROUTE, reason: 'invalid_signature', bucketStart: T0, count: 4, lastAt: T0 + 2_000 }], []), keepAll);
      await store.refusals.record(batch([{ route: ROUTE, reason: 'invalid_signature', bucketStart: T0 + MINUTE, count: 1, lastAt: T0 + MINUTE }], []), keepAll);

      expect((await store.refusals.totals(T0)).counts).toEqual([{ route: ROUTE, reason: 'invalid_signature', count: 8, lastAt: T0 + MINUTE }]);
      expect((await store.refusals.totals(T0 + MINUTE)).counts).toEqual([{ route: ROUTE, reason: 'invalid_signature', count: 1, lastAt: T0 + MINUTE }]);
    });

    it('when flushes bring more examples than are kept, then only the newest of each route and reason stay, newest first', async () => {
      const { store } = await fixture.fresh();
      const senders = (from: number) => Array.from({ length: 4 }, (_, i) => example('rate_limited', `192.0.2.${from + i}`, T0 + (from + i) * 1000));

      await store.refusals.record(batch([{ route: ROUTE, reason: 'rate_limited', bucketStart: T0, count: 4, lastAt: T0 + 3000 }], senders(0)), keepAll);
      await store.refusals.record(
        batch(
          [{ route: ROUTE, reason: 'org_not_allowed', bucketStart: T0, count: 1, lastAt: T0 }],
          [...senders(4), example('org_not_allowed', '198.51.100.1', T0)],
        ),
        keepAll,
      );

      const { examples } = await store.refusals.totals(T0);
      expect(examples.filter((item) => item.reason === 'rate_limited').map((item) => item.sender)).toEqual([
        '192.0.2.7',
        '192.0.2.6',
        '192.0.2.5',
        '192.0.2.4',
        '192.0.2.3',
      ]);
      expect(examples.filter((item) => item.reason === 'org_not_allowed')).toEqual([example('org_not_allowed', '198.51.100.1', T0)]);
    });

    it('when a flush prunes before a time, then older counts and examples are gone and newer ones stay', async () => {
      const { store } = await fixture.fresh();
      await store.refusals.record(
        batch([{ route: ROUTE, reason: 'body_too_large', bucketStart: T0, count: 2, lastAt: T0 }], [example('body_too_large', '192.0.2.1', T0)]),
        keepAll,
      );

      await store.refusals.record(
        batch(
          [{ route: ROUTE, reason: 'body_too_large', bucketStart: T0 + 60 * MINUTE, count: 1, lastAt: T0 + 60 * MINUTE }],
          [example('body_too_large', '192.0.2.2', T0 + 60 * MINUTE)],
        ),
        { examples: 5, since: T0 + 30 * MINUTE },
      );

      expect(await store.refusals.totals(0)).toEqual({
        counts: [{ route: ROUTE, reason: 'body_too_large', count: 1, lastAt: T0 + 60 * MINUTE }],
        examples: [example('body_too_large', '192.0.2.2', T0 + 60 * MINUTE)],
      });
    });

    it('when nothing was refused, then the totals are empty', async () => {
      const { store } = await fixture.fresh();

      expect(await store.refusals.totals(0)).toEqual({ counts: [], examples: [] });
    });
  });
}
