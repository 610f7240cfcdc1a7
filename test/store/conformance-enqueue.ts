import { describe, expect, it } from 'vitest';

import { claimAll, job, type StoreHarness, T0, uniqueKey, useFixture } from './conformance-fixture.ts';

export function enqueueConformance(harness: StoreHarness): void {
  describe('enqueue and coalescing', () => {
    const fixture = useFixture(harness);

    it('when a job is enqueued, then it is stored pending with every field', async () => {
      const { store } = await fixture.fresh();
      const [first] = await store.enqueue([job({ kind: 'import', payload: { title: 'Demo' }, runAt: T0 + 5 })]);
      const [replay] = await store.enqueue([job({ replayOf: first!.id })]);

      const stored = await store.getJob(first!.id);

      expect(stored).toEqual(first);
      expect(stored).toMatchObject({
        kind: 'import',
        payload: { title: 'Demo' },
        state: 'pending',
        attempts: 0,
        runAt: T0 + 5,
        coalesceKey: null,
        leaseOwner: null,
        supersededBy: null,
        lastError: null,
        result: null,
      });
      expect((await store.getJob(replay!.id))?.replayOf).toBe(first!.id);
      expect(await store.getJob(999_999)).toBeUndefined();
    });

    it('when three jobs of one key are enqueued one after another, then they form a supersede chain and one stays pending', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('meeting');

      const [a] = await store.enqueue([job({ coalesceKey: key, payload: 'v1' })]);
      const [b] = await store.enqueue([job({ coalesceKey: key, payload: 'v2' })]);
      const [c] = await store.enqueue([job({ coalesceKey: key, payload: 'v3' })]);

      expect(await store.getJob(a!.id)).toMatchObject({ state: 'superseded', supersededBy: b!.id });
      expect(await store.getJob(b!.id)).toMatchObject({ state: 'superseded', supersededBy: c!.id });
      expect(await store.getJob(c!.id)).toMatchObject({ state: 'pending', supersededBy: null });
      const claimed = await claimAll(store, 'w');
      expect(claimed.map((claimedJob) => claimedJob.payload)).toEqual(['v3']);
    });

    it('when one call enqueues several jobs of one key, then the chain is the same as one by one', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('meeting');
      const [old] = await store.enqueue([job({ coalesceKey: key })]);

      const batch = await store.enqueue([job({ coalesceKey: key }), job(), job({ coalesceKey: key })]);

      expect(batch.map((created) => created.state)).toEqual(['superseded', 'pending', 'pending']);
      expect(batch[0]?.supersededBy).toBe(batch[2]!.id);
      expect(await store.getJob(old!.id)).toMatchObject({ state: 'superseded', supersededBy: batch[0]!.id });
      expect(await store.getJob(batch[0]!.id)).toMatchObject({ state: 'superseded', supersededBy: batch[2]!.id });
    });

    it('when a job of a key is running and a new one is enqueued, then the running one is untouched and the new one waits', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('meeting');
      const [running] = await store.enqueue([job({ coalesceKey: key })]);
      await claimAll(store, 'w1');

      const [next] = await store.enqueue([job({ coalesceKey: key })]);

      expect(await store.getJob(running!.id)).toMatchObject({ state: 'running', leaseOwner: 'w1', supersededBy: null });
      expect(next?.state).toBe('pending');
      expect(await claimAll(store, 'w2')).toEqual([]);
      await store.finish({ jobId: running!.id, leaseOwner: 'w1', outcome: { state: 'succeeded' } });
      expect((await claimAll(store, 'w2')).map((claimed) => claimed.id)).toEqual([next!.id]);
    });

    it('when jobs are enqueued, then listeners of onJobsAvailable are woken and can unsubscribe', async () => {
      const { store } = await fixture.fresh();
      let wakes = 0;
      const unsubscribe = store.onJobsAvailable(() => (wakes += 1));

      await store.enqueue([job()]);
      await new Promise((resolve) => setImmediate(resolve));
      const afterFirst = wakes;
      unsubscribe();
      await store.enqueue([job()]);
      await new Promise((resolve) => setImmediate(resolve));

      expect(afterFirst).toBeGreaterThanOrEqual(1);
      expect(wakes).toBe(afterFirst);
    });

    it('when a key has a pending job, then pendingOfKey names it; once it runs, none', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('meeting');
      await store.enqueue([job({ coalesceKey: key })]);
      const [newest] = await store.enqueue([job({ coalesceKey: key })]);

      const whilePending = await store.pendingOfKey(key);
      await store.claim({ owner: 'w1', limit: 5, leaseMs: 60_000 });

      expect(whilePending).toBe(newest!.id);
      expect(await store.pendingOfKey(key)).toBeUndefined();
      expect(await store.pendingOfKey(uniqueKey('other'))).toBeUndefined();
    });
  });
}
