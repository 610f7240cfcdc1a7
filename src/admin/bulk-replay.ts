import { JOB_PRIORITY, type JobFilter, type ListPosition } from '../store/types.ts';
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
 * Bulk replay (issue 5). Oldest first, so when two replays of one meeting meet in the queue the
 * newer request supersedes the older. At most `max` (ADMIN_BULK_MAX) per run; deliveries already
 * replayed are skipped unless asked for, so running it again continues with the rest instead of
 * sending the same deliveries twice. The replays are ordinary deliveries: the worker paces them.
 */
export async function bulkReplay(store: AdminStore, body: BulkReplayBody, max: number): Promise<BulkReplayAnswer> {
  const { includeReplayed, ...filterInput } = body.filter;
  const filter: JobFilter = { ...deliveryFilter(filterInput), ...(includeReplayed ? {} : { notReplayed: true }) };
  const matched = await store.countJobs(filter);
  const sample = (await store.listJobs({ ...filter, order: 'oldest', limit: SAMPLE_SIZE })).map(jobSummary);
  if (body.dryRun) return { dryRun: true, matched, replayed: Math.min(matched, max), capped: matched > max, sample };

  let replayed = 0;
  let after: ListPosition | undefined;
  while (replayed < max) {
    const batch = await store.listJobs({ ...filter, order: 'oldest', ...(after ? { after } : {}), limit: Math.min(BATCH_SIZE, max - replayed) });
    const last = batch.at(-1);
    if (last === undefined) break;
    await store.enqueue(batch.map((job) => replayJob(job, JOB_PRIORITY.bulk)));
    replayed += batch.length;
    after = { at: last.createdAt, id: last.id };
  }
  return { dryRun: false, matched, replayed, capped: matched > max, sample };
}
