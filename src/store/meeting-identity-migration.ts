/**
 * The tables behind MeetingIdentities (meeting-identity-types.ts), as one store migration written
 * with the store's type placeholders, listed by src/store/migrations.ts as version 11.
 */
export const MEETING_IDENTITY_MIGRATION = {
  name: 'meeting identity across sources',
  statements: [
    // One row per meeting the bridge knows. A meeting joined into another keeps its row, pointing at the one it joined.
    `CREATE TABLE meetings (
      id {id},
      created_at {bigint} NOT NULL,
      merged_into {bigint}
    )`,
    `CREATE INDEX meetings_merged ON meetings (merged_into) WHERE merged_into IS NOT NULL`,
    // One row per source record (the map-event job's serial key): which meeting it is, and its newest state's facts.
    `CREATE TABLE meeting_sources (
      record_key TEXT PRIMARY KEY,
      meeting_id {bigint} NOT NULL,
      source TEXT NOT NULL,
      start_at {bigint},
      host TEXT,
      title TEXT,
      cancelled {int} NOT NULL DEFAULT 0,
      imported_id TEXT,
      event_id {bigint} NOT NULL,
      source_version {bigint},
      created_at {bigint} NOT NULL,
      updated_at {bigint} NOT NULL
    )`,
    `CREATE INDEX meeting_sources_meeting ON meeting_sources (meeting_id)`,
    // What ties sources together: an iCalendar UID, a join link, a Zoom meeting number, a host (those last near one start).
    `CREATE TABLE meeting_links (
      link TEXT NOT NULL,
      record_key TEXT NOT NULL,
      meeting_id {bigint} NOT NULL,
      PRIMARY KEY (link, record_key)
    )`,
    `CREATE INDEX meeting_links_record ON meeting_links (record_key)`,
    `CREATE INDEX meeting_links_meeting ON meeting_links (meeting_id)`,
    // A match record names the meeting its source was part of when it was made (kept current when meetings join).
    `ALTER TABLE match_records ADD COLUMN meeting_id {bigint}`,
    `CREATE INDEX match_records_meeting_id ON match_records (meeting_id, id) WHERE meeting_id IS NOT NULL`,
  ],
} as const;
