import type { Attempt, InboundEvent, InboundMessage, Job } from '../store/types.ts';
import type { DeliveryDetail, EventDetail, EventSummary, JobSummary } from './response-schemas.ts';

/** How the admin API shows stored rows: ISO times, the coalescing key named `meeting`. */

export const iso = (ms: number): string => new Date(ms).toISOString();

export function jobSummary(job: Job): JobSummary {
  return {
    id: job.id,
    kind: job.kind,
    state: job.state,
    meeting: job.coalesceKey,
    attempts: job.attempts,
    createdAt: iso(job.createdAt),
    updatedAt: iso(job.updatedAt),
    runAt: iso(job.runAt),
    eventId: job.eventId,
    replayOf: job.replayOf,
    supersededBy: job.supersededBy,
    lastError: job.lastError,
  };
}

export function eventSummary(event: InboundEvent): EventSummary {
  return {
    id: event.id,
    messageId: event.messageId,
    source: event.source,
    senderId: event.senderId,
    dedupeKey: event.dedupeKey,
    receivedAt: iso(event.receivedAt),
    state: event.state,
    stateReason: event.stateReason,
  };
}

export function attemptView(attempt: Attempt): DeliveryDetail['attempts'][number] {
  return {
    id: attempt.id,
    startedAt: iso(attempt.startedAt),
    durationMs: attempt.durationMs,
    ...(attempt.status === undefined ? {} : { status: attempt.status }),
    ...(attempt.errorClass === undefined ? {} : { errorClass: attempt.errorClass }),
    ...(attempt.responseExcerpt === undefined ? {} : { error: attempt.responseExcerpt }),
    ...(attempt.upstreamRequestId === undefined ? {} : { upstreamRequestId: attempt.upstreamRequestId }),
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A delivery's payload as stored: `{request, flags, replay?}` for a remap, `{request}` for an import. */
export function deliveryView(job: Job): DeliveryDetail['delivery'] {
  const payload = isRecord(job.payload) ? job.payload : {};
  const flags = isRecord(payload.flags)
    ? { triggerSummary: payload.flags.triggerSummary === true, triggerAiSignals: payload.flags.triggerAiSignals === true }
    : null;
  return { ...jobSummary(job), request: payload.request ?? null, flags, replay: payload.replay === true, result: job.result };
}

export function messageView(message: InboundMessage): EventDetail['message'] {
  return { id: message.id, source: message.source, senderId: message.senderId, receivedAt: iso(message.receivedAt), rawPayload: message.rawPayload };
}
