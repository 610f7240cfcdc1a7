/**
 * Retention (docs/operations.md, retention): what the store removes once it is older than a cutoff,
 * in small batches, each its own short transaction. A walk reads one table in id order from where
 * it stopped and removes the rows nothing kept still needs; the rest stay (retention-sql.ts says
 * which and why).
 */

/**
 * The walks, in the order a pass runs them. `events` removes an event with everything made from it
 * (its jobs with their attempts and delivery rows, its match records) or none of it; `jobs` the
 * jobs made from no event; `messages` the messages left with no event. A row goes only once
 * nothing points at it, so messages come last.
 */
export const RETENTION_WALKS = ['events', 'jobs', 'messages'] as const;
export type RetentionWalk = (typeof RETENTION_WALKS)[number];

/** Rows removed, per table. */
export interface RemovedCounts {
  jobs: number;
  attempts: number;
  deliveredMeetings: number;
  matchRecords: number;
  events: number;
  messages: number;
  matchTouches: number;
  /** Activity roll-up rows (per minute and per hour) of buckets before the cutoff: the rows they counted are gone too. */
  activityRollups: number;
  /** Source records at rest (RETENTION_MEETING_DAYS), with their links; meeting_versions rows of removed jobs. */
  meetingSources: number;
  meetingVersions: number;
  /** Meetings left with no source record. */
  meetings: number;
}

export const noneRemoved = (): RemovedCounts => ({
  jobs: 0,
  attempts: 0,
  deliveredMeetings: 0,
  matchRecords: 0,
  events: 0,
  messages: 0,
  matchTouches: 0,
  activityRollups: 0,
  meetingSources: 0,
  meetingVersions: 0,
  meetings: 0,
});

export interface WalkBatch {
  walk: RetentionWalk;
  /** The id the walk stopped after (0 at its start): rows with larger ids are read. */
  after: number;
  /** The cutoff (epoch ms): only rows older are removed, and the walk stops at the first row made since. */
  before: number;
  /** Rows read in this batch, at most. */
  limit: number;
  /**
   * The age limit of a meeting's kept state (epoch ms; RETENTION_MEETING_DAYS before the pass): a
   * newest state, last delivery, newest match or source record last touched before it is kept no
   * longer. 0 keeps them whatever their age.
   */
  restBefore: number;
}

export interface WalkBatchResult {
  removed: Partial<RemovedCounts>;
  /** The last id read: the next batch starts after it. */
  cursor: number;
  /** The walk reached rows made after the cutoff (or the end of the table): nothing more to read this pass. */
  caughtUp: boolean;
}

/** Where a walk of every table stands, kept between passes. */
export interface WalkState {
  /** When this walk started from the first row; after a day the next pass starts over (rows kept earlier may be removable now). */
  startedAt: number;
  cursors: Record<RetentionWalk, number>;
}

/** One pass: when, up to which cutoff, what it removed, and whether it stopped with work left. */
export interface RetentionPass {
  at: number;
  cutoff: number;
  durationMs: number;
  batches: number;
  removed: RemovedCounts;
  /** Stopped at its bound with rows left to read: the next pass comes at the next check, not after the interval. */
  more: boolean;
  walk: WalkState & { caughtUp: boolean };
}

export interface RetentionStore {
  /** One batch of one walk, in one short transaction (SQLite: one non-durable write batch). */
  pruneWalk(batch: WalkBatch): Promise<WalkBatchResult>;
  /** Removes up to `limit` match touches last refreshed before `before`; resolves how many. */
  pruneTouches(before: number, limit: number): Promise<number>;
  /** The last pass recorded (savePass), if any. */
  /** Removes up to `limit` activity roll-up rows of buckets before `before`; returns how many. */
  pruneRollups(before: number, limit: number): Promise<number>;
  lastPass(): Promise<RetentionPass | undefined>;
  savePass(pass: RetentionPass): Promise<void>;
}

export interface Retention {
  readonly retention: RetentionStore;
}
