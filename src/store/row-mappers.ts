import { fromJson } from './store-values.ts';
import type { Attempt, EventState, InboundEvent, InboundMessage, Job, JobState } from './types.ts';
import type { BucketRow } from './token-bucket.ts';
import type { Candidate } from './job-rules.ts';

/** A row as either driver returns it: snake_case columns, BIGINTs already numbers. */
export type Row = Record<string, unknown>;

const num = (value: unknown): number => Number(value);
const numOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));
const textOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));

/** A job row's coalescing key (null when it has none, or when there is no row). */
export const coalesceKeyOf = (row: Row | undefined): string | null => textOrNull(row?.coalesce_key);

/** A row of the claim queries (id, coalesce_key, run_at). */
export const candidateFromRow = (row: Row): Candidate => ({ id: num(row.id), coalesceKey: coalesceKeyOf(row), runAt: num(row.run_at) });

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
  return { id: num(row.id), source: String(row.source), senderId: textOrNull(row.sender_id), rawPayload: String(row.raw_payload), receivedAt: num(row.received_at) };
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

export function bucketFromRow(row: Row | undefined): BucketRow | undefined {
  if (row === undefined) return undefined;
  return { tokens: num(row.tokens), updatedAt: num(row.updated_at), blockedUntil: numOrNull(row.blocked_until) };
}
