import { setTimeout as sleep } from 'node:timers/promises';

import { describe, expect, it } from 'vitest';

import type { ActivityBucket, Job, JobOutcome, NewJob, Store } from '../../src/store/types.ts';
import { job, message, type StoreHarness, T0, uniqueKey, useFixture } from './conformance-fixture.ts';

const MINUTE = 60_000;
const KINDS = ['remap', 'import'];

const empty = (start: number): ActivityBucket => ({ start, inbound: 0, succeeded: 0, dead: 0, skipped: 0, superseded: 0, rematched: 0 });

/** Enqueues one job, claims it alone and ends it with `outcome`: the job as the worker leaves it, ended now. */
async function ended(store: Store, newJob: NewJob, outcome: Exclude<JobOutcome, { state: 'retry' | 'deferred' }>): Promise<Job> {
  const [created] = await store.enqueue([{ ...newJob, runAt: T0 }]);
  const owner = `w-${created!.id}`;
  const [claimed] = await store.claim({ owner, limit: 1, leaseMs: 60_000, now: T0 + 1 });
  expect(claimed?.id).toBe(created!.id);
  expect(await store.finish({ jobId: created!.id, leaseOwner: owner, outcome })).toBe(true);
  // Apart by a few milliseconds, so each job ends at a time of its own.
  await sleep(3);
  return (await store.getJob(created!.id))!;
}

export function activityConformance(harness: StoreHarness): void {
  describe('read models: activity per bucket', () => {
    const fixture = useFixture(harness);

    it('when events are received around bucket edges, then each counts in the bucket that holds its time, an edge opening a bucket, and empty buckets are zeros', async () => {
      const { store } = await fixture.fresh();
      for (const receivedAt of [T0 - 1, T0, T0 + MINUTE - 1, T0 + MINUTE, T0 + 3 * MINUTE + 5, T0 + 4 * MINUTE]) {
        await store.ingest(message([uniqueKey('evt')], { receivedAt }), () => []);
      }

      const buckets = await store.activity({ since: T0, until: T0 + 4 * MINUTE, bucketMs: MINUTE, kinds: KINDS });
      const shifted = await store.activity({ since: T0 + 30_000, until: T0 + 2 * MINUTE, bucketMs: MINUTE, kinds: KINDS });

      expect(buckets).toEqual([
        { ...empty(T0), inbound: 2 },
        { ...empty(T0 + MINUTE), inbound: 1 },
        empty(T0 + 2 * MINUTE),
        { ...empty(T0 + 3 * MINUTE), inbound: 1 },
      ]);
      // Buckets start at since; the last ends at until, shorter than the others.
      expect(shifted).toEqual([
        { ...empty(T0 + 30_000), inbound: 2 },
        { ...empty(T0 + 90_000), inbound: 0 },
      ]);
    });

    it('when jobs end in each state, then deliveries count by the time they ended and state, and other kinds and states do not count', async () => {
      const { store } = await fixture.fresh();
      const succeeded = await ended(store, job({ kind: 'remap' }), { state: 'succeeded' });
      const dead = await ended(store, job({ kind: 'import' }), { state: 'dead', reason: '400 from Momentum' });
      const skipped = await ended(store, job({ kind: 'remap' }), { state: 'skipped', reason: 'unchanged' });
      await ended(store, job({ kind: 'map-event' }), { state: 'succeeded' });
      const key = uniqueKey('meeting');
      const [older] = await store.enqueue([job({ kind: 'remap', coalesceKey: key, runAt: T0 + 3_600_000 })]);
      const [newer, cancelled] = await store.enqueue([
        job({ kind: 'remap', coalesceKey: key, runAt: T0 + 3_600_000 }),
        job({ kind: 'remap', runAt: T0 + 3_600_000 }),
      ]);
      await store.cancelJob(cancelled!.id, 'not needed');
      const superseded = (await store.getJob(older!.id))!;
      const until = Date.now() + 1;

      const all = await store.activity({ since: succeeded.updatedAt, until, bucketMs: until - succeeded.updatedAt, kinds: KINDS });
      const beforeDead = await store.activity({ since: succeeded.updatedAt, until: dead.updatedAt, bucketMs: 3_600_000, kinds: KINDS });
      const fromDead = await store.activity({ since: dead.updatedAt, until: skipped.updatedAt + 1, bucketMs: 3_600_000, kinds: KINDS });
      const perMs = await store.activity({ since: succeeded.updatedAt, until: skipped.updatedAt + 1, bucketMs: 1, kinds: KINDS });

      expect(superseded).toMatchObject({ state: 'superseded', supersededBy: newer!.id });
      expect(all).toEqual([{ start: succeeded.updatedAt, inbound: 0, succeeded: 1, dead: 1, skipped: 1, superseded: 1, rematched: 0 }]);
      expect(beforeDead).toEqual([{ ...empty(succeeded.updatedAt), succeeded: 1 }]);
      expect(fromDead).toEqual([{ ...empty(dead.updatedAt), dead: 1, skipped: 1 }]);
      expect(perMs).toHaveLength(skipped.updatedAt + 1 - succeeded.updatedAt);
      expect(perMs[0]).toEqual({ ...empty(succeeded.updatedAt), succeeded: 1 });
      expect(perMs[dead.updatedAt - succeeded.updatedAt]).toEqual({ ...empty(dead.updatedAt), dead: 1 });
      expect(perMs.at(-1)).toEqual({ ...empty(skipped.updatedAt), skipped: 1 });
      expect(perMs.reduce((total, bucket) => total + bucket.succeeded + bucket.dead + bucket.skipped + bucket.superseded, 0)).toBe(3);
      expect(await store.activity({ since: succeeded.updatedAt, until, bucketMs: until - succeeded.updatedAt, kinds: [] })).toEqual([
        empty(succeeded.updatedAt),
      ]);
    });

    it('when re-checks of meetings end, then those that moved a meeting count as re-matched and those that changed nothing do not', async () => {
      const { store } = await fixture.fresh();
      const moved = await ended(store, job({ kind: 'rematch' }), { state: 'succeeded' });
      await ended(store, job({ kind: 'rematch' }), { state: 'skipped', reason: 'unchanged' });
      const until = Date.now() + 1;

      const all = await store.activity({ since: moved.updatedAt, until, bucketMs: until - moved.updatedAt, kinds: KINDS });

      expect(all).toEqual([{ ...empty(moved.updatedAt), rematched: 1 }]);
    });

    it('when nothing happened in the range, then every bucket is there with zeros', async () => {
      const { store } = await fixture.fresh();

      expect(await store.activity({ since: T0, until: T0 + 3 * MINUTE, bucketMs: MINUTE, kinds: KINDS })).toEqual([
        empty(T0),
        empty(T0 + MINUTE),
        empty(T0 + 2 * MINUTE),
      ]);
    });
  });
}
