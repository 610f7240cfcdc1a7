import type { Candidate } from './job-rules.ts';
import type { MeetingVersion } from './meeting-order.ts';
import { fromJson } from './store-values.ts';
import type { Attempt, EventState, InboundEvent, InboundMessage, Job, JobPriority, JobState } from './types.ts';

/** A row as either driver returns it: snake_case columns, BIGINTs already numbers. */
export type Row = Record<string, unknown>;

// pg returns BIGINT as a string: every number column goes through Number.
export const num = (value: unknown): number => Number(value);
export const numOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));
export const textOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));

/** A job row's coalescing key (null when it has none, or when there is no row). */
export const coalesceKeyOf = (row: Row | undefined): string | null => textOrNull(row?.coalesce_key);

/** A row of the claim queries. */
export const candidateFromRow = (row: Row): Candidate => ({
  id: num(row.id),
  coalesceKey: coalesceKeyOf(row),
  serialKey: textOrNull(row.serial_key),
  rateKey: textOrNull(row.rate_key),
  priority: num(row.priority),
  runAt: num(row.run_at),
});

/** A meeting_versions row, with the job that carries that version. */
export const meetingVersionFromRow = (row: Row | undefined): (MeetingVersion & { jobId: number }) | undefined =>
  row === undefined ? undefined : { sourceVersion: numOrNull(row.source_version), eventId: num(row.event_id), jobId: num(row.job_id) };

export function jobFromRow(row: Row): Job {
  return {
    id: num(row.id),
    kind: String(row.kind),
    payload: fromJson(row.payload),
    coalesceKey: textOrNull(row.coalesce_key),
    state: row.state as JobState,
    attempts: num(row.attempts),
    runAt: num(row.run_at),
    leaseOwner: textOrNull(row.lease_owner),
    leaseUntil: numOrNull(row.lease_until),
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
    eventId: numOrNull(row.event_id),
    supersededBy: numOrNull(row.superseded_by),
    replayOf: numOrNull(row.replay_of),
    lastError: textOrNull(row.last_error),
    result: fromJson(row.result),
    rateKey: textOrNull(row.rate_key),
    priority: num(row.priority ?? 1) as JobPriority,
    serialKey: textOrNull(row.serial_key),
    sourceVersion: numOrNull(row.source_version),
    deliveryNo: numOrNull(row.delivery_no),
  };
}

export function eventFromRow(row: Row): InboundEvent {
  return {
    id: num(row.id),
    messageId: num(row.message_id),
    source: String(row.source),
    senderId: textOrNull(row.sender_id),
    dedupeKey: String(row.dedupe_key),
    parsedPayload: fromJson(row.parsed_payload),
    receivedAt: num(row.received_at),
    state: row.state as EventState,
    stateReason: textOrNull(row.state_reason),
  };
}

export function messageFromRow(row: Row): InboundMessage {
  return {
    id: num(row.id),
    source: String(row.source),
    senderId: textOrNull(row.sender_id),
    rawPayload: String(row.raw_payload),
    receivedAt: num(row.received_at),
  };
}

export function attemptFromRow(row: Row): Attempt {
  const attempt: Attempt = { id: num(row.id), jobId: num(row.job_id), startedAt: num(row.started_at), durationMs: num(row.duration_ms) };
  // Optional fields stay absent rather than null, matching the AttemptRecord that was written.
  if (row.status != null) attempt.status = num(row.status);
  if (row.error_class != null) attempt.errorClass = String(row.error_class);
  if (row.response_excerpt != null) attempt.responseExcerpt = String(row.response_excerpt);
  if (row.upstream_request_id != null) attempt.upstreamRequestId = String(row.upstream_request_id);
  return attempt;
}
