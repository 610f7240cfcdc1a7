import { DatabaseSync } from 'node:sqlite';

import pg from 'pg';

/**
 * Reads a bridge's store from the test, beside the running process (a read-only SQLite connection
 * works next to the writer thanks to WAL; PostgreSQL is read in the bridge's schema). Listings the
 * Store interface does not offer (every job, every attempt) are plain SQL here, kept to reading.
 */

export interface JobRow {
  id: number;
  kind: string;
  state: string;
  attempts: number;
  runAt: number;
  createdAt: number;
  leaseOwner: string | null;
  eventId: number | null;
  payload: unknown;
}

export interface AttemptRow {
  jobId: number;
  startedAt: number;
  durationMs: number;
  status: number | null;
  errorClass: string | null;
}

export interface StoredState {
  jobs(): Promise<JobRow[]>;
  attempts(): Promise<AttemptRow[]>;
  /** Dedupe keys of every stored inbound event (`salesforce:<notification id>`). */
  eventKeys(): Promise<Set<string>>;
  counts(): Promise<{ messages: number; events: number; jobs: number }>;
  close(): Promise<void>;
}

type Row = Record<string, unknown>;
type Query = (sql: string) => Promise<Row[]>;

const num = (value: unknown) => Number(value);
const numOrNull = (value: unknown) => (value === null || value === undefined ? null : Number(value));

function readState(query: Query, close: () => Promise<void>): StoredState {
  return {
    jobs: async () =>
      (await query('SELECT id, kind, state, attempts, run_at, created_at, lease_owner, event_id, payload FROM jobs ORDER BY id')).map((row) => ({
        id: num(row.id),
        kind: String(row.kind),
        state: String(row.state),
        attempts: num(row.attempts),
        runAt: num(row.run_at),
        createdAt: num(row.created_at),
        leaseOwner: row.lease_owner === null ? null : String(row.lease_owner),
        eventId: numOrNull(row.event_id),
        payload: JSON.parse(String(row.payload)) as unknown,
      })),
    attempts: async () =>
      (await query('SELECT job_id, started_at, duration_ms, status, error_class FROM attempts ORDER BY job_id, id')).map((row) => ({
        jobId: num(row.job_id),
        startedAt: num(row.started_at),
        durationMs: num(row.duration_ms),
        status: numOrNull(row.status),
        errorClass: row.error_class === null ? null : String(row.error_class),
      })),
    eventKeys: async () => new Set((await query('SELECT dedupe_key FROM inbound_events')).map((row) => String(row.dedupe_key))),
    async counts() {
      const [row] = await query(
        'SELECT (SELECT COUNT(*) FROM inbound_messages) AS messages, (SELECT COUNT(*) FROM inbound_events) AS events, (SELECT COUNT(*) FROM jobs) AS jobs',
      );
      return { messages: num(row?.messages), events: num(row?.events), jobs: num(row?.jobs) };
    },
    close,
  };
}

/** A SQLite store file, read through its own read-only connection per query (never holds a lock). */
export function sqliteState(file: string): StoredState {
  const query: Query = async (sql) => {
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      return db.prepare(sql).all() as Row[];
    } finally {
      db.close();
    }
  };
  return readState(query, async () => {});
}

/** A PostgreSQL store in `schema`, read through one client of the test's own. */
export async function postgresState(url: string, schema: string): Promise<StoredState> {
  const client = new pg.Client({ connectionString: url, application_name: 'reliability-test-reader', options: `-c search_path=${schema}` });
  await client.connect();
  return readState(
    async (sql) => (await client.query(sql)).rows as Row[],
    () => client.end(),
  );
}

/** Jobs still to run: pending, or running under a lease. */
export const unfinished = (jobs: readonly JobRow[]) => jobs.filter((job) => job.state === 'pending' || job.state === 'running');
