/**
 * The table behind DeliveredMeetings (delivered-types.ts), as one store migration written with the
 * store's type placeholders, listed in src/store/migrations.ts as version 12.
 */

export const DELIVERED_MEETINGS_MIGRATION = {
  name: 'delivered meetings and their read-back',
  statements: [
    // One per remap or import Momentum accepted (delivered-types.ts): what it named and sent, and what a read-back found.
    `CREATE TABLE delivered_meetings (
    job_id {bigint} PRIMARY KEY REFERENCES jobs(id),
    kind TEXT NOT NULL,
    meeting_key TEXT NOT NULL,
    starts_at {bigint},
    momentum_id TEXT,
    title TEXT,
    host TEXT,
    sent TEXT NOT NULL,
    window_start {bigint},
    due_at {bigint},
    readback_outcome TEXT,
    held TEXT,
    checked_at {bigint},
    created_at {bigint} NOT NULL
  )`,
    // The read-back of one window: its deliveries not read back yet, by when they fall due.
    `CREATE INDEX delivered_meetings_readback ON delivered_meetings (window_start, due_at) WHERE readback_outcome IS NULL AND window_start IS NOT NULL`,
    // A newer delivery of the same meeting supersedes an older one's read-back.
    `CREATE INDEX delivered_meetings_key ON delivered_meetings (meeting_key, job_id)`,
    // Reconcile: did the bridge deliver for a meeting Momentum lists (by its start, or Momentum's id)?
    `CREATE INDEX delivered_meetings_start ON delivered_meetings (starts_at) WHERE starts_at IS NOT NULL`,
    `CREATE INDEX delivered_meetings_momentum ON delivered_meetings (momentum_id) WHERE momentum_id IS NOT NULL`,
  ],
} as const;
