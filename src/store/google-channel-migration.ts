/**
 * The tables behind ChannelStore, as one store migration. Written with the store's type
 * placeholders ({bigint}, {int}) so src/store/migrations.ts can list it as the next version;
 * `channelTableStatements` fills them in for a runner that applies it on its own (tests).
 */

export const GOOGLE_CHANNELS_MIGRATION = {
  name: 'google calendars, push channels and leases',
  statements: [
    `CREATE TABLE google_calendars (
      calendar_id TEXT PRIMARY KEY,
      watching {int} NOT NULL,
      added_by TEXT NOT NULL,
      sync_token TEXT,
      updated_at {bigint} NOT NULL
    )`,
    `CREATE TABLE google_channels (
      id TEXT PRIMARY KEY,
      calendar_id TEXT NOT NULL,
      token TEXT NOT NULL,
      resource_id TEXT,
      expiration {bigint} NOT NULL,
      created_at {bigint} NOT NULL,
      renewed_at {bigint},
      stopped_at {bigint}
    )`,
    // Renewal and the backstop scan only live channels.
    `CREATE INDEX google_channels_active ON google_channels (calendar_id) WHERE stopped_at IS NULL AND renewed_at IS NULL`,
    `CREATE TABLE singleton_leases (
      name TEXT PRIMARY KEY,
      owner TEXT NOT NULL,
      lease_until {bigint} NOT NULL
    )`,
  ],
} as const;

/**
 * When each calendar's last sync succeeded and why the last sync or watch failed, for
 * `GET /admin/calendars` (Microsoft mailboxes had them from the start, in version 5).
 */
export const GOOGLE_SYNC_OUTCOME_MIGRATION = {
  version: 18,
  name: 'last sync and last error of google calendars',
  statements: [`ALTER TABLE google_calendars ADD COLUMN last_sync_at {bigint}`, `ALTER TABLE google_calendars ADD COLUMN last_error TEXT`],
} as const;

const TYPES: Record<'sqlite' | 'postgres', Record<string, string>> = {
  sqlite: { bigint: 'INTEGER', int: 'INTEGER' },
  postgres: { bigint: 'BIGINT', int: 'INTEGER' },
};

/** Both migrations' statements, for a runner that creates the Google tables on its own. */
export function channelTableStatements(dialect: 'sqlite' | 'postgres'): string[] {
  return [...GOOGLE_CHANNELS_MIGRATION.statements, ...GOOGLE_SYNC_OUTCOME_MIGRATION.statements].map((sql) =>
    sql.replace(/\{(\w+)\}/g, (_, name: string) => TYPES[dialect][name] ?? `{${name}}`),
  );
}
