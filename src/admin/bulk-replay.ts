import { JOB_PRIORITY, type JobFilter, type ListPosition, type ReplayGuard } from '../store/types.ts';
import type { AdminStore } from './admin-store.ts';
import { deliveryFilter } from './deliveries.ts';
import { replayJob } from './replay.ts';
import type { BulkReplayBody } from './request-schemas.ts';
import type { BulkReplayAnswer } from './response-schemas.ts';
import { jobSummary } from './views.ts';

const SAMPLE_SIZE = 10;
/** Replays are enqueued in transactions of this many, so one bulk run never holds the store for long. */
const BATCH_SIZE = 500;

/**
 * Bulk replay. Oldest first, so when two replays of one meeting meet in the queue the newer request
 * supersedes the older. At most `max` (ADMIN_BULK_MAX) replays created per run. Deliveries already
 * replayed are skipped unless asked for, so running it again continues with the rest instead of
 * sending the same deliveries twice; with `includeReplayed`, a delivery whose replay is still
 * pending or running is skipped all the same (that replay will send it). The listing only narrows
 * the candidates: the store decides per delivery, atomically with the insert, so two runs at once
 * (on one instance or several) never replay one delivery twice, and `replayed` counts the replays
 * this run created. The replays are ordinary deliveries: the worker paces them.
 */
export async function bulkReplay(store: AdminStore, body: BulkReplayBody, max: number): Promise<BulkReplayAnswer> {
  const { includeReplayed, ...filterInput } = body.filter;
  const filter: JobFilter = { ...deliveryFilter(filterInput), ...(includeReplayed ? {} : { notReplayed: true }) };
  const guard: ReplayGuard = includeReplayed ? 'activeReplay' : 'anyReplay';
  const matched = await store.countJobs(filter);
  const sample = (await store.listJobs({ ...filter, order: 'oldest', limit: SAMPLE_SIZE })).map(jobSummary);
  if (body.dryRun) return { dryRun: true, matched, replayed: Math.min(matched, max), capped: matched > max, sample };

  let replayed = 0;
  let after: ListPosition | undefined;
  while (replayed < max) {
    const batch = await store.listJobs({ ...filter, order: 'oldest', ...(after ? { after } : {}), limit: Math.min(BATCH_SIZE, max - replayed) });
    const last = batch.at(-1);
    if (last === undefined) break;
    const results = await store.enqueueReplays(
      batch.map((job) => replayJob(job, JOB_PRIORITY.bulk)),
      guard,
    );
    replayed += results.filter((result) => 'created' in result).length;
    after = { at: last.createdAt, id: last.id };
  }
  return { dryRun: false, matched, replayed, capped: matched > max, sample };
}
