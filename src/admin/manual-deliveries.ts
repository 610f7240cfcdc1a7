import { remapCoalesceKey } from '../momentum/remap-coalesce-key.ts';
import type { ImportRequest, RemapFlags, RemapRequest } from '../momentum/schemas.ts';
import type { Job } from '../store/types.ts';
import type { AdminStore } from './admin-store.ts';

/**
 * Manual deliveries (issue 5): already validated against the Momentum schemas, queued like the
 * mapped ones (same payload shape, coalesced per meeting, paced), so the worker treats them alike.
 */
export async function enqueueManualRemap(store: AdminStore, request: RemapRequest, flags: RemapFlags): Promise<Job> {
  const [job] = await store.enqueue([{ kind: 'remap', payload: { request, flags }, coalesceKey: remapCoalesceKey(request) }]);
  if (job === undefined) throw new Error('enqueueing a manual remap returned no job');
  return job;
}

export async function enqueueManualImport(store: AdminStore, request: ImportRequest): Promise<Job> {
  const [job] = await store.enqueue([{ kind: 'import', payload: { request } }]);
  if (job === undefined) throw new Error('enqueueing a manual import returned no job');
  return job;
}
