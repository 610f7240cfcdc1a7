import type { Attempt, DeliveredMeeting, InboundEvent, InboundMessage, Job } from '../store/types.ts';
import { eventFacts } from './event-facts.ts';
import { readbackState } from './readback-view.ts';
import type { DeliveryDetail, DeliverySummary, EventDetail, EventSummary, JobSummary } from './response-schemas.ts';

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
    number: job.deliveryNo,
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
    title: eventFacts(event.parsedPayload).title,
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
const recordAt = (value: unknown, key: string): Record<string, unknown> => (isRecord(value) && isRecord(value[key]) ? value[key] : {});
const textAt = (value: Record<string, unknown>, key: string): string | null => {
  const text = value[key];
  return typeof text === 'string' && text !== '' ? text : null;
};

/** The Salesforce id fields of each request, as it names them (momentum/schemas.ts). */
const REMAP_ID_FIELDS = ['opportunityId', 'accountId', 'leadId'] as const;
const IMPORT_ID_FIELDS = ['salesforceAccountId', 'salesforceOpportunityId'] as const;

function idsOf(source: Record<string, unknown>, fields: readonly (keyof DeliverySummary['salesforceIds'])[]): DeliverySummary['salesforceIds'] {
  const ids: DeliverySummary['salesforceIds'] = {};
  for (const field of fields) {
    const id = textAt(source, field);
    if (id !== null) ids[field] = id;
  }
  return ids;
}

/**
 * A delivery as a listing shows it: what an operator knows its meeting by, read from the stored
 * request (`{request: {source, salesforceRecords, meetingDetails}}` for a remap, `{request:
 * {meeting}}` for an import). A payload that no longer fits its schema shows nulls, not an error.
 * `delivered`: its row once Momentum accepted it, for the read-back state.
 */
export function deliverySummary(job: Job, delivered?: DeliveredMeeting): DeliverySummary {
  const request = recordAt(job.payload, 'request');
  const readback = readbackState(delivered);
  if (job.kind === 'import') {
    const meeting = recordAt(request, 'meeting');
    return {
      ...jobSummary(job),
      title: textAt(meeting, 'title'),
      sourceRef: textAt(meeting, 'id'),
      startTime: textAt(meeting, 'startTime'),
      salesforceIds: idsOf(meeting, IMPORT_ID_FIELDS),
      readback,
    };
  }
  const source = recordAt(request, 'source');
  const details = recordAt(request, 'meetingDetails');
  const [type, id] = [textAt(source, 'type'), textAt(source, 'id')];
  return {
    ...jobSummary(job),
    title: textAt(details, 'title'),
    sourceRef: id === null ? null : type === null ? id : `${type}:${id}`,
    startTime: textAt(details, 'startTime'),
    salesforceIds: idsOf(recordAt(request, 'salesforceRecords'), REMAP_ID_FIELDS),
    readback,
  };
}

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
