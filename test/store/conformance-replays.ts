import { describe, expect, it } from 'vitest';

import type { Job, NewJob, ReplayGuard, ReplayResult, Store } from '../../src/store/types.ts';
import { claimAll, job, type StoreHarness, uniqueKey, useFixture } from './conformance-fixture.ts';

const replayOf = (original: Job, overrides: Partial<NewJob> = {}): NewJob => job({ replayOf: original.id, ...overrides });
const createdOf = (results: ReplayResult[]): Job[] => results.flatMap((result) => ('created' in result ? [result.created] : []));

async function originals(store: Store, count: number): Promise<Job[]> {
  return store.enqueue(Array.from({ length: count }, () => job()));
}

/** Every replay stored, as [original, replay] pairs sorted by original. */
async function storedReplays(store: Store): Promise<Array<[number, number]>> {
  const all = await store.listJobs({ order: 'oldest', limit: 10_000 });
  return all
    .flatMap((stored): Array<[number, number]> => (stored.replayOf === null ? [] : [[stored.replayOf, stored.id]]))
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}

export function replayConformance(harness: StoreHarness): void {
  describe('enqueueReplays: at most one replay in the way', () => {
    const fixture = useFixture(harness);

    it.each(['anyReplay', 'activeReplay'] as const)('when a job has no replay yet (guard %s), then a pending replay linked to it is created', async (guard) => {
      const { store } = await fixture.fresh();
      const [original] = await originals(store, 1);

      const results = await store.enqueueReplays([replayOf(original!, { payload: { replay: true } })], guard);

      expect(results).toEqual([
        { replayOf: original!.id, created: expect.objectContaining({ state: 'pending', replayOf: original!.id, payload: { replay: true } }) },
      ]);
      expect(await store.getJob(createdOf(results)[0]!.id)).toEqual(createdOf(results)[0]);
    });

    it('when a job has a pending replay, then both guards refuse a new one and name that replay', async () => {
      const { store } = await fixture.fresh();
      const [original] = await originals(store, 1);
      const [first] = createdOf(await store.enqueueReplays([replayOf(original!)], 'activeReplay'));

      const any = await store.enqueueReplays([replayOf(original!)], 'anyReplay');
      const active = await store.enqueueReplays([replayOf(original!)], 'activeReplay');

      expect(any).toEqual([{ replayOf: original!.id, existingReplayId: first!.id }]);
      expect(active).toEqual([{ replayOf: original!.id, existingReplayId: first!.id }]);
      expect(await storedReplays(store)).toEqual([[original!.id, first!.id]]);
    });

    it('when a job has a running replay, then activeReplay refuses a new one', async () => {
      const { store } = await fixture.fresh();
      const [original] = await originals(store, 1);
      const [first] = createdOf(await store.enqueueReplays([replayOf(original!)], 'activeReplay'));
      await claimAll(store, 'w', Date.now() + 1000);

      const again = await store.enqueueReplays([replayOf(original!)], 'activeReplay');

      expect((await store.getJob(first!.id))?.state).toBe('running');
      expect(again).toEqual([{ replayOf: original!.id, existingReplayId: first!.id }]);
    });

    it("when a job's only replay has ended, then anyReplay still refuses (names it) and activeReplay creates a new one", async () => {
      const { store } = await fixture.fresh();
      const [original] = await originals(store, 1);
      const [first] = createdOf(await store.enqueueReplays([replayOf(original!)], 'anyReplay'));
      await store.cancelJob(first!.id, 'ended');

      const any = await store.enqueueReplays([replayOf(original!)], 'anyReplay');
      const active = await store.enqueueReplays([replayOf(original!)], 'activeReplay');

      expect(any).toEqual([{ replayOf: original!.id, existingReplayId: first!.id }]);
      const [second] = createdOf(active);
      expect(second).toMatchObject({ replayOf: original!.id, state: 'pending' });
      expect(await storedReplays(store)).toEqual([
        [original!.id, first!.id],
        [original!.id, second!.id],
      ]);
    });

    it("when one call mixes new, replayed and repeated originals, then each original gets at most one replay and the results follow the call's order", async () => {
      const { store } = await fixture.fresh();
      const [a, b, c] = await originals(store, 3);
      const [earlier] = createdOf(await store.enqueueReplays([replayOf(b!)], 'anyReplay'));

      const results = await store.enqueueReplays([replayOf(c!), replayOf(a!), replayOf(b!), replayOf(c!)], 'anyReplay');

      const [forC, forA] = createdOf(results);
      expect(results).toEqual([
        { replayOf: c!.id, created: forC },
        { replayOf: a!.id, created: forA },
        { replayOf: b!.id, existingReplayId: earlier!.id },
        { replayOf: c!.id, existingReplayId: forC!.id },
      ]);
      expect(await storedReplays(store)).toEqual([
        [a!.id, forA!.id],
        [b!.id, earlier!.id],
        [c!.id, forC!.id],
      ]);
    });

    it('when replays of one coalescing key are created in one call, then they coalesce as enqueue does and the results show it', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('meeting');
      const [older, newer] = await store.enqueue([job({ coalesceKey: key }), job({ coalesceKey: key })]);

      const [first, second] = createdOf(
        await store.enqueueReplays([replayOf(older!, { coalesceKey: key }), replayOf(newer!, { coalesceKey: key })], 'anyReplay'),
      );

      expect(first).toMatchObject({ state: 'superseded', supersededBy: second!.id });
      expect(second).toMatchObject({ state: 'pending' });
      expect(await store.getJob(first!.id)).toEqual(first);
      expect(await store.pendingOfKey(key)).toBe(second!.id);
    });

    it('when a job without replayOf is given, then the call throws and stores nothing', async () => {
      const { store } = await fixture.fresh();
      const [original] = await originals(store, 1);
      const before = await store.listJobs({ limit: 100 });

      await expect(store.enqueueReplays([replayOf(original!), job()], 'anyReplay')).rejects.toThrow('without replayOf');

      expect(await store.listJobs({ limit: 100 })).toEqual(before);
    });

    it('when replays are created, then listeners of onJobsAvailable are woken; when none is, they are not', async () => {
      const { store } = await fixture.fresh();
      const [original] = await originals(store, 1);
      let wakes = 0;
      store.onJobsAvailable(() => (wakes += 1));

      await store.enqueueReplays([replayOf(original!)], 'anyReplay');
      await new Promise((resolve) => setImmediate(resolve));
      const afterCreate = wakes;
      await store.enqueueReplays([replayOf(original!)], 'anyReplay');
      await new Promise((resolve) => setImmediate(resolve));

      expect(afterCreate).toBeGreaterThanOrEqual(1);
      expect(wakes).toBe(afterCreate);
    });

    it.each(['anyReplay', 'activeReplay'] as const)(
      'when callers on two stores of one database replay overlapping originals concurrently (guard %s), then each original is replayed exactly once',
      async (guard: ReplayGuard) => {
        const { store, reopen } = await fixture.fresh();
        const second = await reopen();
        const all = await originals(store, 120);
        // Four callers, two per store, each with an overlapping slice in its own order.
        const slices = [all.slice(0, 90), all.slice(30, 120).reverse(), all.filter((_, index) => index % 2 === 0), all.slice(0, 120).reverse()];

        const results = await Promise.all(
          slices.map((slice, index) =>
            (index % 2 === 0 ? store : second).enqueueReplays(
              slice.map((original) => replayOf(original)),
              guard,
            ),
          ),
        );

        const created = results.flatMap(createdOf);
        expect(created).toHaveLength(all.length);
        expect(new Set(created.map((replay) => replay.replayOf))).toEqual(new Set(all.map((original) => original.id)));
        expect((await storedReplays(store)).map(([original]) => original)).toEqual(all.map((original) => original.id));
        // Every refusal names the one replay its original got.
        const replayOfOriginal = new Map(created.map((replay) => [replay.replayOf, replay.id]));
        for (const result of results.flat()) {
          if ('existingReplayId' in result) expect(result.existingReplayId).toBe(replayOfOriginal.get(result.replayOf));
        }
      },
    );
  });
}
