import { importJob, remapJob } from '../momentum/delivery-jobs.ts';
import type { ImportRequest, RemapFlags, RemapRequest } from '../momentum/schemas.ts';
import { type Job, JOB_PRIORITY } from '../store/types.ts';
import type { AdminStore } from './admin-store.ts';

/**
 * Manual deliveries: already validated against the Momentum schemas, queued like the mapped ones
 * (same payload shape, coalesced per meeting, paced), so the worker treats them alike; an
 * operator's action goes before automatic deliveries waiting for the budget.
 */
export async function enqueueManualRemap(store: AdminStore, request: RemapRequest, flags: RemapFlags): Promise<Job> {
  const [job] = await store.enqueue([remapJob(request, flags, { priority: JOB_PRIORITY.operator })]);
  if (job === undefined) throw new Error('enqueueing a manual remap returned no job');
  return job;
}

export async function enqueueManualImport(store: AdminStore, request: ImportRequest): Promise<Job> {
  const [job] = await store.enqueue([importJob(request, { priority: JOB_PRIORITY.operator })]);
  if (job === undefined) throw new Error('enqueueing a manual import returned no job');
  return job;
}
