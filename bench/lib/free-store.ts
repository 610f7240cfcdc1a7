import type { Job, NewJob, Store } from '../../src/store/types.ts';

/**
 * A store whose queue costs nothing: the worker claims the given jobs from a list in memory and
 * their outcomes go nowhere. A drain through it is what the bridge would do with a store that
 * took no CPU at all — neither on the event loop nor on a thread of its own — so it bounds what
 * any store design (another engine, the store on a worker thread) could win for the drain.
 * Everything the worker asks besides reads as a store with these jobs and nothing else would
 * answer: no job pending behind another, no earlier success of the same meeting.
 */
export function storeCostingNothing(store: Store, jobs: readonly NewJob[]): Store {
  const now = Date.now();
  let next = 0;
  const claimed = (index: number, owner: string, leaseMs: number): Job => {
    const job = jobs[index] as NewJob;
    return {
      id: index + 1,
      kind: job.kind,
      payload: job.payload,
      coalesceKey: job.coalesceKey ?? null,
      rateKey: job.rateKey ?? null,
      priority: job.priority ?? 1,
      serialKey: job.serialKey ?? null,
      sourceVersion: job.sourceVersion ?? null,
      state: 'running',
      attempts: 0,
      runAt: now,
      leaseOwner: owner,
      leaseUntil: Date.now() + leaseMs,
      createdAt: now,
      updatedAt: now,
      eventId: null,
      supersededBy: null,
      replayOf: null,
      lastError: null,
      result: null,
    };
  };
  return {
    ...store,
    async claim({ owner, limit, leaseMs }) {
      const batch: Job[] = [];
      while (batch.length < limit && next < jobs.length) batch.push(claimed(next++, owner, leaseMs));
      return batch;
    },
    finish: async () => true,
    extendLeases: async () => {},
    releaseLeases: async () => 0,
    pendingOfKey: async () => undefined,
    lastSucceeded: async () => undefined,
    nextDueAt: async () => undefined,
    onJobsAvailable: () => () => {},
  };
}
