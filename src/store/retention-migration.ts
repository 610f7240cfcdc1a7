/**
 * What retention (retention-sql.ts) needs of the schema, as one store migration written with the
 * store's type placeholders. Deleting a row makes each engine look for rows still pointing at it,
 * and retention asks the same before it deletes: each such question must be an index probe, or
 * every deleted row would read a whole table.
 */
export const RETENTION_MIGRATION = {
  version: 14,
  name: 'indexes and state for retention',
  statements: [
    // A message is removed once no event of it is left (the foreign key inbound_events.message_id).
    `CREATE INDEX inbound_events_message ON inbound_events (message_id)`,
    // A job is removed only when no job left names it as its successor (the foreign key jobs.superseded_by).
    `CREATE INDEX jobs_superseded_by ON jobs (superseded_by) WHERE superseded_by IS NOT NULL`,
    // A meeting's newest state names its job: a later, older state is stored superseded by it, so it is kept.
    `CREATE INDEX meeting_versions_job ON meeting_versions (job_id)`,
    // A source record's newest state names its event (the admin's meeting page links to it): kept.
    `CREATE INDEX meeting_sources_event ON meeting_sources (event_id)`,
    // What a match looked at, by when: touches older than the re-match window are never read again.
    `CREATE INDEX match_touches_at ON match_touches (at)`,
    // One row: where each walk of the tables stands, and what the last pass removed (for the admin's stats).
    `CREATE TABLE retention_state (
      name TEXT PRIMARY KEY,
      passed_at {bigint} NOT NULL,
      state TEXT NOT NULL
    )`,
  ],
};
