import { toJson } from './store-values.ts';

/**
 * The meetings Momentum accepted a remap or an import for, as the store keeps them: the meeting the
 * delivery named, the ids it carried, and what reading Momentum back found (docs/operations.md,
 * read-back). Written with the delivery's success, in the same transaction; read by the read-back
 * job, by reconcile (a meeting the bridge delivered for is one it saw) and by the admin API.
 */

/** What a read-back found: the ids sent, other ids, no such meeting listed, or a newer delivery of the meeting made it moot. */
export type ReadbackOutcome = 'confirmed' | 'not_applied' | 'not_found' | 'superseded';

export interface SentIds {
  opportunityId?: string;
  accountId?: string;
  leadId?: string;
}

export interface NewDeliveredMeeting {
  /** The delivery's kind: `remap` or `import`. */
  kind: string;
  /** The delivery's coalescing key: the meeting as the bridge knows it. */
  meetingKey: string;
  /** The meeting's start (epoch ms), when the delivery names one. */
  startsAt?: number;
  /** Momentum's own meeting id, when the delivery names it. */
  momentumId?: string;
  title?: string;
  /** The host's email, lower case. */
  host?: string;
  sent: SentIds;
  /** Set when the delivery is to be read back: the window it is read in and when it falls due. */
  readback?: { windowStart: number; dueAt: number };
}

export interface DeliveredMeeting extends NewDeliveredMeeting {
  /** The delivery (a remap or import job) that Momentum accepted. */
  jobId: number;
  createdAt: number;
  /** Null until read back (or when it is never read back). */
  readbackOutcome: ReadbackOutcome | null;
  /** What Momentum held when read back: its meeting id and Salesforce ids. */
  held: unknown;
  checkedAt: number | null;
}

export interface ReadbackResult {
  jobId: number;
  outcome: ReadbackOutcome;
  held?: unknown;
}

export interface DeliveredMeetings {
  /**
   * Marks `superseded` every delivery of the window not read back yet whose meeting has a newer
   * delivery: Momentum's answer is compared with the newest ids sent, never with older ones.
   */
  supersedeOlder(windowStart: number, at: number): Promise<void>;
  /** The window's deliveries not read back yet and due by `dueBy`, oldest first, at most `limit`. */
  dueForReadback(windowStart: number, dueBy: number, limit: number): Promise<DeliveredMeeting[]>;
  /** When the window's next delivery not read back yet falls due; undefined when none waits. */
  nextReadbackDue(windowStart: number): Promise<number | undefined>;
  settleReadbacks(results: readonly ReadbackResult[], at: number): Promise<void>;
  /** The rows of these deliveries (the admin API's flag). */
  forJobs(jobIds: readonly number[]): Promise<DeliveredMeeting[]>;
  /** Deliveries naming a meeting that starts in [from, to], or naming one of these Momentum ids. */
  namedAmong(from: number, to: number, momentumIds: readonly string[]): Promise<DeliveredMeeting[]>;
}

export interface Delivered {
  readonly delivered: DeliveredMeetings;
}

/** The statement that stores a delivery's row with its success (SQL both engines accept). */
export const INSERT_DELIVERED = `INSERT INTO delivered_meetings (job_id, kind, meeting_key, starts_at, momentum_id, title, host, sent, window_start, due_at, created_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (job_id) DO NOTHING`;

/** INSERT_DELIVERED's parameters for a finishing delivery. */
export const deliveredParams = (meeting: NewDeliveredMeeting, jobId: number, now: number): Array<string | number | null> => [
  jobId,
  meeting.kind,
  meeting.meetingKey,
  meeting.startsAt ?? null,
  meeting.momentumId ?? null,
  meeting.title ?? null,
  meeting.host ?? null,
  toJson(meeting.sent),
  meeting.readback?.windowStart ?? null,
  meeting.readback?.dueAt ?? null,
  now,
];
