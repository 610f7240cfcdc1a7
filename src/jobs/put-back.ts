import type { Logger } from '../core/logger.ts';
import type { Job, Store } from '../store/types.ts';
import { messageOf } from './run-job.ts';

/**
 * Jobs a worker claimed but does not run go back to the queue (pending) with their call slot
 * given back. Both steps are `finish` with a `deferred` outcome: the attempt count is not raised.
 */

export interface PutBackDeps {
  store: Pick<Store, 'finish' | 'pendingOfKey'>;
  logger: Logger;
  /** The worker's lease owner: only the holder of a lease may put its job back. */
  owner: string;
  now: () => number;
}

/**
 * Coalescing holds for jobs claimed ahead as for pending ones: a job that waited while a newer
 * job of its key was enqueued steps aside without being sent. Going back to the queue does it:
 * the store supersedes a job returning to pending when its key has a pending job (SQL.finish).
 * True when the job stepped aside.
 */
export async function supersededWhileWaiting(deps: PutBackDeps, job: Job): Promise<boolean> {
  const { store, logger, owner, now } = deps;
  const newer = await store.pendingOfKey(job.coalesceKey as string);
  if (newer === undefined) return false;
  await store.finish({
    jobId: job.id,
    leaseOwner: owner,
    outcome: { state: 'deferred', runAt: now() },
    ...(job.rateKey !== null && { rateSlot: 'refund' as const }),
  });
  logger.info('job superseded while it waited to run', { owner, jobId: job.id, kind: job.kind, supersededBy: newer });
  return true;
}

/**
 * Paced jobs claimed but never started made no call: their slots go back to the budget, and the
 * jobs to the queue. Left to releaseLeases they would keep their slots for a whole window, and a
 * rolling restart would waste part of the budget. A slot not given back (the store failed) is
 * only budget unused, never a call over the limit.
 */
export async function giveBackSlots(deps: PutBackDeps, jobs: readonly Job[]): Promise<void> {
  const { store, logger, owner, now } = deps;
  const paced = jobs.filter((job) => job.rateKey !== null);
  await Promise.all(
    paced.map((job) =>
      store.finish({ jobId: job.id, leaseOwner: owner, outcome: { state: 'deferred', runAt: now() }, rateSlot: 'refund' }).catch((error: unknown) => {
        logger.warn('giving back the call slot of a job never started failed; the slot frees at the end of its window', {
          owner,
          jobId: job.id,
          error: messageOf(error),
        });
      }),
    ),
  );
}
