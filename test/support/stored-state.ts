import { DatabaseSync } from 'node:sqlite';

import pg from 'pg';
import { describe, expect } from 'vitest';

import { type Engine, ENGINES } from './real-store.ts';

/*
 * What a bridge left in its database, read the same way on both engines over a connection of the
 * test's own: a meeting can reach Momentum while the state beneath it is broken (a delta link never
 * stored, a sync job dead after its attempts), so end-to-end tests assert these rows too.
 */

export type Row = Record<string, unknown>;

/** Rows of `sql` (`$1`… placeholders on both engines) in the database at `databaseUrl` (`sqlite:<file>` or a PostgreSQL URL with `?schema=`). */
export function queryRows(databaseUrl: string, sql: string, params: readonly unknown[] = []): Promise<Row[]> {
  return runSql(databaseUrl, sql, params, true);
}

/** Writes as a test's seeding must sometimes (rows an older release left behind): same engines and placeholders as queryRows. */
export function executeSql(databaseUrl: string, sql: string, params: readonly unknown[] = []): Promise<Row[]> {
  return runSql(databaseUrl, sql, params, false);
}

async function runSql(databaseUrl: string, sql: string, params: readonly unknown[], readOnly: boolean): Promise<Row[]> {
  if (databaseUrl.startsWith('sqlite:')) {
    const db = new DatabaseSync(databaseUrl.slice('sqlite:'.length), { readOnly });
    try {
      const statement = db.prepare(sql.replace(/\$(\d+)/g, '?$1'));
      if (!readOnly && !/\bRETURNING\b/i.test(sql)) {
        statement.run(...(params as Array<string | number | null>));
        return [];
      }
      const rows = statement.all(...(params as Array<string | number | null>)) as Row[];
      // node:sqlite answers BIGINT columns as numbers or bigints; tests compare numbers.
      return rows.map((row) => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, typeof value === 'bigint' ? Number(value) : value])));
    } finally {
      db.close();
    }
  }
  const parsed = new URL(databaseUrl);
  const schema = parsed.searchParams.get('schema');
  parsed.searchParams.delete('schema');
  const client = new pg.Client({ connectionString: parsed.toString(), types: { getTypeParser: numbersAsNumbers } });
  await client.connect();
  try {
    if (schema) await client.query(`SET search_path TO "${schema}"`);
    return (await client.query(sql, [...params])).rows as Row[];
  } finally {
    await client.end();
  }
}

// pg answers BIGINT (20) and NUMERIC (1700) as text; the store's are times, ids and counts, and tests compare numbers.
const numbersAsNumbers = ((oid: number, format?: 'text' | 'binary') =>
  oid === 20 || oid === 1700 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser;

/**
 * The re-match sweep (crm-sweep) is always scheduled once Salesforce lookups are on: its next run,
 * pending in the future, is the bridge at rest, not work left undone. Every other job counts.
 */
export const notScheduledSweep = () => `WHERE NOT (kind = 'crm-sweep' AND state = 'pending' AND run_at > ${Date.now()})`;

export interface JobSummary {
  id: number;
  kind: string;
  state: string;
  attempts: number;
  reason: string | null;
}

/** Every job, oldest first. */
export async function storedJobStates(databaseUrl: string): Promise<JobSummary[]> {
  // A job's reason (why it ended skipped, dead or cancelled, or its last error) is its last_error column.
  const rows = await queryRows(databaseUrl, `SELECT id, kind, state, attempts, last_error AS state_reason FROM jobs ${notScheduledSweep()} ORDER BY id`);
  return rows.map((row) => ({
    id: Number(row.id),
    kind: String(row.kind),
    state: String(row.state),
    attempts: Number(row.attempts),
    reason: row.state_reason === null || row.state_reason === undefined ? null : String(row.state_reason),
  }));
}

export interface SettledExpectations {
  /** Kinds whose jobs may have needed more than one attempt (a retry the test provoked). */
  retriedKinds?: readonly string[];
  /** Kinds whose jobs may end `dead` (the test provoked it and asserts the reason itself). */
  deadKinds?: readonly string[];
}

/**
 * Asserts the queue is settled: nothing pending or running, nothing dead and nothing retried unless
 * the test says which kinds may be. The failure message lists the offending jobs with their reasons.
 */
export async function expectSettled(databaseUrl: string, expectations: SettledExpectations = {}): Promise<JobSummary[]> {
  const jobs = await storedJobStates(databaseUrl);
  const unsettled = jobs.filter((job) => job.state === 'pending' || job.state === 'running');
  const dead = jobs.filter((job) => job.state === 'dead' && !(expectations.deadKinds ?? []).includes(job.kind));
  const retried = jobs.filter((job) => job.attempts > 1 && !(expectations.retriedKinds ?? []).includes(job.kind));
  expect({ unsettled, dead, retried }, 'the queue is settled: nothing pending, running, dead or retried').toEqual({ unsettled: [], dead: [], retried: [] });
  return jobs;
}

/** Waits until no job is pending or running (a liveness bound, not a speed assertion). */
export async function waitSettled(databaseUrl: string, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const open = await queryRows(databaseUrl, `SELECT id, kind, state FROM jobs ${notScheduledSweep()} AND state IN ('pending', 'running')`);
    if (open.length === 0) return;
    if (Date.now() > until) throw new Error(`timed out waiting for the queue to settle; still open: ${JSON.stringify(open)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * One suite per engine: `body(engine)` runs under "on SQLite" and "on PostgreSQL" (reported as
 * skipped when TEST_DATABASE_URL is not set), so every end-to-end test proves both engines.
 */
export function describeEachEngine(title: string, body: (engine: Engine) => void): void {
  for (const { engine, skip, title: engineTitle } of ENGINES) {
    describe.skipIf(skip)(`${title} ${engineTitle}`, () => body(engine));
  }
}
