import { queryRows } from '../../support/stored-state.ts';

/*
 * Every reference between the store's tables, declared as a foreign key or not: what retention
 * must never leave pointing at a removed row. map_job_id of a match record is left out: nothing
 * reads it, and a kept match record may outlive its map-event job (src/store/retention-sql.ts).
 */
const REFERENCES: ReadonlyArray<readonly [table: string, column: string, target: string, targetColumn: string]> = [
  ['inbound_events', 'message_id', 'inbound_messages', 'id'],
  ['jobs', 'event_id', 'inbound_events', 'id'],
  ['jobs', 'superseded_by', 'jobs', 'id'],
  ['jobs', 'replay_of', 'jobs', 'id'],
  ['attempts', 'job_id', 'jobs', 'id'],
  ['match_records', 'event_id', 'inbound_events', 'id'],
  ['delivered_meetings', 'job_id', 'jobs', 'id'],
  ['meeting_versions', 'job_id', 'jobs', 'id'],
  ['meeting_versions', 'event_id', 'inbound_events', 'id'],
  ['meeting_sources', 'event_id', 'inbound_events', 'id'],
];

/** `table.column -> target` for each row naming a row that is not there; empty when every reference holds. */
export async function danglingReferences(databaseUrl: string): Promise<string[]> {
  const found: string[] = [];
  for (const [table, column, target, targetColumn] of REFERENCES) {
    const rows = await queryRows(
      databaseUrl,
      `SELECT r.${column} AS missing FROM ${table} r WHERE r.${column} IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM ${target} t WHERE t.${targetColumn} = r.${column})`,
    );
    for (const row of rows) found.push(`${table}.${column} -> ${target} ${String(row.missing)}`);
  }
  return found;
}

/** How many rows each table of retention's concern holds. */
export async function rowCounts(databaseUrl: string): Promise<Record<string, number>> {
  const tables = [
    'inbound_messages',
    'inbound_events',
    'jobs',
    'attempts',
    'match_records',
    'delivered_meetings',
    'match_touches',
    'meeting_pins',
    'meetings',
    'meeting_sources',
    'meeting_versions',
  ];
  const counts: Record<string, number> = {};
  for (const table of tables) counts[table] = Number((await queryRows(databaseUrl, `SELECT COUNT(*) AS n FROM ${table}`))[0]!.n);
  return counts;
}
