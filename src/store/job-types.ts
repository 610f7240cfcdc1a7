import type { NewDeliveredMeeting } from './delivered-types.ts';
import type { EventState } from './inbox-types.ts';
import type { NewMatchRecord } from './match-types.ts';
import type { MeetingVersion } from './meeting-order.ts';
import type { ClaimPacing } from './pacing-types.ts';

/** The job queue's records: what is enqueued, claimed, run and finished (store/types.ts gathers every store type). */

export type JobState = 'pending' | 'running' | 'succeeded' | 'dead' | 'superseded' | 'skipped' | 'cancelled';

export interface NewJob {
  kind: string;
  payload: unknown;
  /** Jobs sharing a key are coalesced while pending and never run at the same time. */
  coalesceKey?: string;
  runAt?: number;
  eventId?: number;
  /** The job this one replays (admin replay). */
  replayOf?: number;
  /** The upstream budget this job draws one call from when it runs (see ClaimOptions.pacing). */
  rateKey?: string;
  /** JOB_PRIORITY: a claim takes operator actions first, then live changes, then bulk work. */
  priority?: JobPriority;
  /** Jobs sharing a serial key never run at the same time; unlike coalescing, none replaces another. */
  serialKey?: string;
  /**
   * The source's own version of the state this job carries (epoch ms: a record's SystemModstamp, a
   * calendar event's `updated`); with `eventId` it orders the jobs of one coalescing key (see
   * meeting-order.ts). Only jobs made from an inbound event take part in that ordering.
   */
  sourceVersion?: number;
}

/** The kinds that are deliveries (they call Momentum) and get a delivery number (Job.deliveryNo). */
export const NUMBERED_KINDS: readonly string[] = ['remap', 'import'];

/** Priority classes, lowest first: what an operator asked for, then live changes, then bulk replays. */
export const JOB_PRIORITY = { operator: 0, live: 1, bulk: 2 } as const;
export type JobPriority = (typeof JOB_PRIORITY)[keyof typeof JOB_PRIORITY];
export type PriorityClass = keyof typeof JOB_PRIORITY;

export interface Job {
  id: number;
  kind: string;
  payload: unknown;
  coalesceKey: string | null;
  state: JobState;
  /** Attempts made so far (deferrals for pacing do not count). */
  attempts: number;
  runAt: number;
  leaseOwner: string | null;
  leaseUntil: number | null;
  createdAt: number;
  updatedAt: number;
  eventId: number | null;
  supersededBy: number | null;
  replayOf: number | null;
  /** Why the job ended as it did, or the last retryable error. */
  lastError: string | null;
  result: unknown;
  rateKey: string | null;
  priority: JobPriority;
  serialKey: string | null;
  sourceVersion: number | null;
  /**
   * A delivery's (remap, import) number: gap-free across deliveries, unlike ids, which internal
   * jobs share (meeting-search-migration.ts); null for every other kind.
   */
  deliveryNo: number | null;
}

export interface AttemptRecord {
  startedAt: number;
  durationMs: number;
  /** HTTP status when a response arrived. */
  status?: number;
  /** `network`, `timeout`, `http_5xx`, `rejected`, `invalid_request`… when it failed. */
  errorClass?: string;
  /** At most 4 KB of the response (the error field of an error body). */
  responseExcerpt?: string;
  upstreamRequestId?: string;
}

export interface Attempt extends AttemptRecord {
  id: number;
  jobId: number;
}

export type JobOutcome =
  | { state: 'succeeded'; result?: unknown }
  | { state: 'retry'; runAt: number; error: string }
  | { state: 'dead' | 'skipped' | 'cancelled'; reason: string; result?: unknown }
  /** Pacing: back to pending at `runAt`; the attempt count is not raised. */
  | { state: 'deferred'; runAt: number };

export interface FinishJob {
  jobId: number;
  leaseOwner: string;
  outcome: JobOutcome;
  /**
   * A paced job's call slot: `settle` when the call may have reached the upstream (its slot then
   * counts from now, when the answer came back), `refund` when no call was made (the slot is freed).
   */
  rateSlot?: 'settle' | 'refund';
  attempt?: AttemptRecord;
  /** Follow-up jobs, enqueued (with coalescing) in the same transaction. */
  enqueue?: NewJob[];
  eventUpdate?: { eventId: number; state: EventState; reason?: string };
  /** The mapping run's match record, stored in the same transaction (src/store/match-types.ts). */
  matchRecord?: NewMatchRecord;
  /** A delivery Momentum accepted: the meeting it named, stored in the same transaction (delivered-types.ts). */
  delivered?: NewDeliveredMeeting;
  /** How far a CRM sweep has read each object, stored with the re-match jobs it enqueued. */
  watermarks?: ReadonlyArray<{ object: string; modstamp: string }>;
  /** A meeting cancelled at its source, in the same transaction (MeetingCancellation). */
  cancelPending?: MeetingCancellation;
}

/**
 * A meeting's cancellation: the pending jobs of its coalescing keys end `cancelled` with the
 * reason, and the cancellation becomes each key's newest state (meeting-order.ts), so a job made
 * later from an older state of the meeting is stored stale and never sent. A running job is left
 * to finish.
 */
export interface MeetingCancellation {
  coalesceKeys: readonly string[];
  reason: string;
  version: MeetingVersion;
}

export interface ClaimOptions {
  owner: string;
  limit: number;
  leaseMs: number;
  now?: number;
  /**
   * Budgets of paced jobs (jobs with a rate key). A paced job is claimed only with a call slot of
   * its budget, taken in the same transaction, so no window of `windowMs` ever holds more than
   * `requests` calls over every instance on this store; a job with no slot stays pending and is
   * never claimed to be put back. At most `max` paced jobs per claim (the worker's free slots).
   * Absent: pacing is off, and paced jobs are claimed like any other.
   */
  pacing?: ClaimPacing;
}
