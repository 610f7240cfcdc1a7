/**
 * The tables behind re-matching (docs/calendars.md, re-matching), as one store migration written
 * with the store's type placeholders: what each meeting's match looked at (so a CRM change finds
 * the meetings it touches through an index, not by reading every match record), and how far the
 * sweep has read each object's changes.
 */
export const REMATCH_MIGRATION = {
  version: 10,
  name: 'match touches and CRM watermarks for re-matching',
  statements: [
    // One row per (what was looked at, meeting): an attendee's email, an Account, an opportunity, a Lead.
    `CREATE TABLE match_touches (
      kind TEXT NOT NULL,
      value TEXT NOT NULL,
      meeting_key TEXT NOT NULL,
      at {bigint} NOT NULL,
      PRIMARY KEY (kind, value, meeting_key)
    )`,
    `CREATE TABLE crm_watermarks (
      object TEXT PRIMARY KEY,
      modstamp TEXT NOT NULL,
      updated_at {bigint} NOT NULL
    )`,
  ],
};
