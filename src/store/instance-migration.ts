/**
 * The table behind the instance heartbeat (instance-store.ts), as one store migration written with
 * the store's type placeholders, listed by src/store/migrations.ts as version 16.
 */
export const INSTANCE_MIGRATION = {
  version: 16,
  name: 'bridge instances and when each was last seen',
  statements: [
    // One row per process, refreshed on a timer (src/admin/instance-heartbeat.ts): the admin's health answer lists the live ones.
    `CREATE TABLE instances (
      id TEXT PRIMARY KEY,
      host TEXT NOT NULL,
      pid {int} NOT NULL,
      version TEXT NOT NULL,
      started_at {bigint} NOT NULL,
      seen_at {bigint} NOT NULL
    )`,
  ],
};
