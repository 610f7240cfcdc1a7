import type { Job } from '../store/types.ts';

/** A claimed job from claim until its outcome is stored. */
export interface ActiveJob {
  job: Job;
  controller: AbortController;
  /** Set by stop() past its deadline: the run must not store an outcome (its lease is released). */
  abandoned: boolean;
  /** Until when this worker knows it holds the lease. */
  leaseUntil: number;
  done: Promise<void>;
}

/**
 * Graceful shutdown: waits up to `deadlineMs` for the active jobs; the ones still running then
 * are abandoned and aborted (their leases are released by the caller). Resolves how many.
 */
export async function drainActiveJobs(active: ReadonlyMap<number, ActiveJob>, deadlineMs: number): Promise<number> {
  const all = Promise.allSettled([...active.values()].map((entry) => entry.done));
  let deadline: NodeJS.Timeout | undefined;
  const timedOut = await Promise.race([all.then(() => false), new Promise<boolean>((resolve) => (deadline = setTimeout(resolve, deadlineMs, true)))]);
  clearTimeout(deadline);
  if (!timedOut) return 0;
  const left = [...active.values()];
  for (const entry of left) {
    entry.abandoned = true;
    entry.controller.abort(new Error('worker stopped before the job finished'));
  }
  return left.length;
}
