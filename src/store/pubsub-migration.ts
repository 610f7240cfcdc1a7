/**
 * The table behind PubSubCursors (pubsub-cursors.ts), as one store migration written with the
 * store's type placeholders, listed by src/store/migrations.ts as version 19.
 */
export const PUBSUB_CURSOR_MIGRATION = {
  version: 19,
  name: 'salesforce pub/sub replay cursors',
  statements: [
    // One row per subscription (org, channel). replay_id is the Pub/Sub API's opaque id as raw
    // bytes: ids are not contiguous, 10-byte ones exist, and a number made of them loses bytes.
    `CREATE TABLE pubsub_cursors (
      org_id TEXT NOT NULL,
      topic TEXT NOT NULL,
      replay_id {bytes} CHECK (replay_id IS NULL OR length(replay_id) > 0),
      commit_timestamp {bigint},
      last_event_at {bigint},
      last_keepalive_at {bigint},
      last_error TEXT,
      last_error_at {bigint},
      resubscribes {int} NOT NULL DEFAULT 0,
      state TEXT NOT NULL CHECK (state IN ('subscribed', 'resubscribing', 'backstop', 'stopped')),
      holder TEXT,
      updated_at {bigint} NOT NULL,
      PRIMARY KEY (org_id, topic)
    )`,
  ],
};
