import type { Logger } from '../core/logger.ts';
import type { JobQueue } from '../store/types.ts';
import type { ActiveJob } from './active-jobs.ts';
import { messageOf } from './run-job.ts';

export interface LeaseKeeperOptions {
  store: Pick<JobQueue, 'extendLeases'>;
  logger: Logger;
  owner: string;
  leaseMs: number;
  now: () => number;
  /** Every job this worker holds a lease on: running, finishing, or claimed ahead and waiting. */
  leased: () => ActiveJob[];
}

/**
 * Extends the leases of running jobs every third of a lease, so a slow upstream call is not
 * mistaken for a crashed process. A job whose lease could not be kept is aborted: another
 * worker may already run it, and its outcome would be refused anyway.
 */
export function startLeaseKeeper(options: LeaseKeeperOptions): () => void {
  const { store, logger, owner, leaseMs, now, leased } = options;
  let busy = false;
  const tick = async () => {
    if (busy) return;
    const entries = leased();
    if (entries.length === 0) return;
    busy = true;
    const at = now();
    try {
      await store.extendLeases(
        entries.map((entry) => entry.job.id),
        owner,
        leaseMs,
      );
      for (const entry of entries) entry.leaseUntil = at + leaseMs;
    } catch (error) {
      logger.warn('extending job leases failed', { owner, jobs: entries.length, error: messageOf(error) });
    } finally {
      busy = false;
    }
    for (const entry of entries) {
      if (entry.leaseUntil < now() && !entry.controller.signal.aborted) {
        logger.warn('job lease lost; aborting the run', { owner, jobId: entry.job.id, kind: entry.job.kind });
        entry.controller.abort(new Error('job lease lost'));
      }
    }
  };
  const interval = setInterval(() => void tick(), Math.max(10, Math.floor(leaseMs / 3)));
  return () => clearInterval(interval);
}
