import type { Logger } from '../core/logger.ts';
import type { AttemptRecord, EventState, Job, MeetingCancellation, NewDeliveredMeeting, NewJob, NewMatchRecord } from '../store/types.ts';

/**
 * What a job handler reports. The worker turns it into a store outcome: it owns the retry
 * schedule, jitter and Retry-After clamping, so handlers only classify what happened.
 */
export type HandlerResult = (
  | { kind: 'succeeded'; result?: unknown }
  /** Try again later. `retryAfterMs` is the upstream's Retry-After; `minDelayMs` a floor (60 s after a timeout or 429). */
  | { kind: 'retryable'; error: string; retryAfterMs?: number; minDelayMs?: number }
  /** Final without success: `dead` (rejected, invalid, not retryable) or `skipped` (nothing to do, with why). */
  | { kind: 'final'; state: 'dead' | 'skipped'; reason: string; result?: unknown }
  /** Not attempted: run again at `runAt` without counting an attempt (pacing). */
  | { kind: 'deferred'; runAt: number }
) & {
  attempt?: AttemptRecord;
  enqueue?: NewJob[];
  eventUpdate?: { eventId: number; state: EventState; reason?: string };
  /** A mapping run's match record, stored with the outcome. */
  matchRecord?: NewMatchRecord;
  /** A CRM sweep's watermarks, stored with the outcome. */
  watermarks?: ReadonlyArray<{ object: string; modstamp: string }>;
  /** A meeting cancelled at its source: what is pending for it is cancelled with the outcome. */
  cancelPending?: MeetingCancellation;
  /** A delivery Momentum accepted: the meeting it named, stored with the outcome. */
  delivered?: NewDeliveredMeeting;
  /**
   * Whether a call may have reached the upstream (sent, even if it failed or timed out). A paced
   * job's call slot is kept when it did and given back when it did not (invalid, unchanged).
   */
  calledUpstream?: boolean;
};

export interface JobContext {
  logger: Logger;
  /** Aborted when the worker stops past its deadline or the job's lease is lost. */
  signal: AbortSignal;
  now: () => number;
}

export type JobHandler = (job: Job, context: JobContext) => Promise<HandlerResult>;
