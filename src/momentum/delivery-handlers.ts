import type { Logger } from '../core/logger.ts';
import type { JobHandler } from '../jobs/types.ts';
import type { Job, JobQueue } from '../store/types.ts';
import type { MomentumCallResult, MomentumClient } from './client.ts';
import { importKind, remapKind } from './delivery-jobs.ts';
import { type PacingDeps, toHandlerResult } from './delivery-outcome.ts';
import { deliveredImport, deliveredRemap } from './readback-job.ts';
import { meetingNaming } from './remap-coalesce-key.ts';
import { type RemapDeliveryPayload, remapDeliveryPayloadSchema } from './schemas.ts';

export { remapCoalesceKey } from './remap-coalesce-key.ts';

export interface DeliveryDeps extends PacingDeps {
  client: MomentumClient;
  logger: Logger;
}

export interface RemapHandlerDeps extends DeliveryDeps {
  /** Only the read behind the "unchanged → not re-sent" rule. */
  store: Pick<JobQueue, 'lastSucceeded'>;
  /** MOMENTUM_READBACK_DELAY when read-back is on; undefined when it is off. */
  readbackDelayMs?: number;
}

/** The meeting a delivery is about, for its delivered row: its coalescing key, or the job itself when it has none. */
const meetingKeyOf = (job: Job): string => job.coalesceKey ?? `job:${job.id}`;

/**
 * `remap` jobs: skip if unchanged, send (the claim already took the call's slot), classify. One
 * Momentum accepted leaves its delivered row and, with read-back on, the read-back of its window.
 */
export function createRemapHandler(deps: RemapHandlerDeps): JobHandler {
  return remapKind.handler(async (payload, job, context) => {
    // A replay is an operator's explicit "send it again": the unchanged rule does not apply.
    if (!payload.replay && job.coalesceKey !== null) {
      const last = await deps.store.lastSucceeded(remapKind.name, job.coalesceKey);
      if (last !== undefined && last.id !== job.id && sameRemap(last.payload, payload)) {
        deps.logger.info('remap unchanged, not re-sent', { jobId: job.id, coalesceKey: job.coalesceKey, lastJobId: last.id });
        return { kind: 'final', state: 'skipped', reason: 'unchanged', result: { sameAs: last.id } };
      }
    }

    const result = await deps.client.remap(payload.request, payload.flags, { idempotencyKey: String(job.id), signal: context.signal });
    logCall(deps.logger, 'remap', job, result);
    const handled = await toHandlerResult(result, deps, context.now());
    if (handled.kind !== 'succeeded') return handled;
    const { row, jobs } = deliveredRemap(payload.request, meetingKeyOf(job), context.now(), deps.readbackDelayMs);
    return { ...handled, delivered: row, ...(jobs.length === 0 ? {} : { enqueue: jobs }) };
  });
}

export interface ImportHandlerDeps extends DeliveryDeps {
  /** Only the read behind the "imported once" rule. */
  store: Pick<JobQueue, 'lastSucceeded'>;
}

/**
 * `import` jobs: skip a meeting already imported, send (the claim already took the call's slot),
 * classify. A meeting id imported successfully is not imported again: Momentum would hold it
 * twice. Only an operator's replay sends it again.
 */
export function createImportHandler(deps: ImportHandlerDeps): JobHandler {
  return importKind.handler(async (payload, job, context) => {
    if (!payload.replay && job.coalesceKey !== null) {
      const last = await deps.store.lastSucceeded(importKind.name, job.coalesceKey);
      if (last !== undefined && last.id !== job.id) {
        deps.logger.info('meeting already imported, not imported again', { jobId: job.id, coalesceKey: job.coalesceKey, lastJobId: last.id });
        return { kind: 'final', state: 'skipped', reason: 'already imported', result: { sameAs: last.id } };
      }
    }
    const result = await deps.client.importMeeting(payload.request, { idempotencyKey: String(job.id), signal: context.signal });
    logCall(deps.logger, 'import', job, result);
    const handled = await toHandlerResult(result, deps, context.now());
    return handled.kind === 'succeeded' ? { ...handled, delivered: deliveredImport(payload.request, meetingKeyOf(job)) } : handled;
  });
}

/**
 * A meeting whose last forwarded remap carried exactly the same Salesforce ids and flags, and named
 * the meeting the same way, is not re-sent. A remap naming its meeting by source reaches it however
 * its details changed; one naming it by its details (title, start, host) reaches it only by those,
 * so a meeting moved to a new start is sent again with it (docs/calendars.md, reschedules).
 */
function sameRemap(previousPayload: unknown, current: RemapDeliveryPayload): boolean {
  const previous = remapDeliveryPayloadSchema.safeParse(previousPayload);
  if (!previous.success) return false;
  return (
    meetingNaming(previous.data.request) === meetingNaming(current.request) &&
    canonicalJson(previous.data.request.salesforceRecords) === canonicalJson(current.request.salesforceRecords) &&
    canonicalJson(previous.data.flags) === canonicalJson(current.flags)
  );
}

/** JSON with object keys sorted, so key order never makes two equal bodies differ. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

function logCall(logger: Logger, kind: string, job: Job, result: MomentumCallResult): void {
  const meta = { jobId: job.id, attempts: job.attempts, outcome: result.kind, ms: result.durationMs };
  // The worker's 'job finished' line carries status and upstream request id at info: one line per job.
  if (result.kind === 'success') logger.debug(`${kind} forwarded`, { ...meta, status: result.status, upstreamRequestId: result.requestId });
  else if (result.kind === 'network' || result.kind === 'timeout' || result.kind === 'aborted')
    logger.warn(`${kind} failed`, { ...meta, error: result.message });
  else logger.warn(`${kind} failed`, { ...meta, status: result.status, excerpt: result.excerpt, upstreamRequestId: result.requestId });
}
