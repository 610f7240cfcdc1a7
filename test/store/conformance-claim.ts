import { describe, expect, it } from 'vitest';

import { claimAll, job, type StoreHarness, T0, uniqueKey, useFixture } from './conformance-fixture.ts';

export function claimConformance(harness: StoreHarness): void {
  describe('claim, leases and due times', () => {
    const fixture = useFixture(harness);

    it('when jobs are due at different times, then claims hand out the oldest run time first, up to the limit, and nothing not yet due', async () => {
      const { store } = await fixture.fresh();
      const [late, early, middle, future] = await store.enqueue([
        job({ runAt: T0 + 30 }),
        job({ runAt: T0 + 10 }),
        job({ runAt: T0 + 20 }),
        job({ runAt: T0 + 5000 }),
      ]);

      const first = await store.claim({ owner: 'w1', limit: 2, leaseMs: 1000, now: T0 + 100 });
      const second = await store.claim({ owner: 'w1', limit: 5, leaseMs: 1000, now: T0 + 100 });

      expect(first.map((claimed) => claimed.id)).toEqual([early!.id, middle!.id]);
      expect(second.map((claimed) => claimed.id)).toEqual([late!.id]);
      expect(first[0]).toMatchObject({ state: 'running', leaseOwner: 'w1', leaseUntil: T0 + 1100, attempts: 0 });
      expect(await store.getJob(future!.id)).toMatchObject({ state: 'pending', leaseOwner: null });
    });

    it('when a job of a key is running, then no other job of that key is claimed until it finishes', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('meeting');
      const [first] = await store.enqueue([job({ coalesceKey: key })]);
      await claimAll(store, 'w1');
      const [second, free] = await store.enqueue([job({ coalesceKey: key }), job()]);

      const whileRunning = await claimAll(store, 'w2');
      await store.finish({ jobId: first!.id, leaseOwner: 'w1', outcome: { state: 'succeeded' } });
      const afterFinish = await claimAll(store, 'w2');

      expect(whileRunning.map((claimed) => claimed.id)).toEqual([free!.id]);
      expect(afterFinish.map((claimed) => claimed.id)).toEqual([second!.id]);
    });

    it('when a lease expired, then the job is claimed again, before the newer job of its key', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('meeting');
      const [crashed] = await store.enqueue([job({ coalesceKey: key })]);
      await store.claim({ owner: 'dead-worker', limit: 1, leaseMs: 1000, now: T0 + 100 });
      const [newer] = await store.enqueue([job({ coalesceKey: key, runAt: T0 })]);

      const beforeExpiry = await store.claim({ owner: 'w2', limit: 5, leaseMs: 1000, now: T0 + 1099 });
      const afterExpiry = await store.claim({ owner: 'w2', limit: 5, leaseMs: 1000, now: T0 + 1100 });

      expect(beforeExpiry).toEqual([]);
      expect(afterExpiry.map((claimed) => claimed.id)).toEqual([crashed!.id]);
      expect(afterExpiry[0]).toMatchObject({ leaseOwner: 'w2', leaseUntil: T0 + 2100, attempts: 0 });
      expect(await store.getJob(newer!.id)).toMatchObject({ state: 'pending' });
      expect(await store.finish({ jobId: crashed!.id, leaseOwner: 'dead-worker', outcome: { state: 'succeeded' } })).toBe(false);
    });

    it('when leases are extended, then only the owner’s running jobs keep their lease longer', async () => {
      const { store } = await fixture.fresh();
      const [mine, theirs] = await store.enqueue([job(), job()]);
      await store.claim({ owner: 'w1', limit: 1, leaseMs: 1000, now: T0 + 100 });
      await store.claim({ owner: 'w2', limit: 1, leaseMs: 1000, now: T0 + 100 });

      await store.extendLeases([mine!.id, theirs!.id], 'w1', 60_000);

      expect((await store.getJob(mine!.id))?.leaseUntil).toBeGreaterThan(Date.now());
      expect((await store.getJob(theirs!.id))?.leaseUntil).toBe(T0 + 1100);
    });

    it('when an owner releases its leases, then its running jobs are pending again and others’ are untouched', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('meeting');
      const [mine, theirs, keyed] = await store.enqueue([job(), job({ runAt: T0 + 1 }), job({ coalesceKey: key, runAt: T0 + 2 })]);
      await store.claim({ owner: 'w1', limit: 1, leaseMs: 60_000, now: T0 + 100 });
      await store.claim({ owner: 'w2', limit: 1, leaseMs: 60_000, now: T0 + 100 });
      await store.claim({ owner: 'w1', limit: 1, leaseMs: 60_000, now: T0 + 100 });
      const [newer] = await store.enqueue([job({ coalesceKey: key })]);

      const released = await store.releaseLeases('w1');

      expect(released).toBe(2);
      expect(await store.getJob(mine!.id)).toMatchObject({ state: 'pending', leaseOwner: null, leaseUntil: null, attempts: 0 });
      expect(await store.getJob(theirs!.id)).toMatchObject({ state: 'running', leaseOwner: 'w2' });
      // A newer job of the key was already pending: it carries the newer data, the released one steps aside.
      expect(await store.getJob(keyed!.id)).toMatchObject({ state: 'superseded', supersededBy: newer!.id });
      expect(await store.releaseLeases('w1')).toBe(0);
    });

    it('when jobs are pending, running or blocked by their key, then nextDueAt is the earliest claimable time', async () => {
      const { store } = await fixture.fresh();
      expect(await store.nextDueAt()).toBeUndefined();
      const key = uniqueKey('meeting');
      await store.enqueue([job({ coalesceKey: key, runAt: T0 })]);
      await store.claim({ owner: 'w1', limit: 1, leaseMs: 5000, now: T0 });
      await store.enqueue([job({ coalesceKey: key, runAt: T0 + 10 }), job({ runAt: T0 + 9000 })]);

      const withLease = await store.nextDueAt();
      await store.releaseLeases('w1');
      const afterRelease = await store.nextDueAt();

      // The key's pending job waits for the running one, so the lease expiry comes first.
      expect(withLease).toBe(T0 + 5000);
      expect(afterRelease).toBe(T0 + 10);
    });
  });
}
