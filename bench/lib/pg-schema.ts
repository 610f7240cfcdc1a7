import { randomBytes } from 'node:crypto';

import pg from 'pg';

/**
 * PostgreSQL for the benchmarks: TEST_DATABASE_URL, or the local test database the CI uses. Each
 * run gets a fresh schema (`?schema=`, the bridge's own way of putting a process in one schema:
 * open-store.ts), dropped afterwards.
 */
const postgresUrl = (): string => process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Runs `run` with the URL of a fresh schema and drops the schema afterwards; when PostgreSQL does
 * not answer, adds a note saying so (without the URL's credentials) and returns undefined.
 */
export async function onPostgres<T>(label: string, notes: string[], run: (databaseUrl: string) => Promise<T>): Promise<T | undefined> {
  const url = postgresUrl();
  try {
    await withClient(url, (client) => client.query('SELECT 1'));
  } catch (error) {
    notes.push(`PostgreSQL skipped: ${url.replace(/\/\/[^@]*@/, '//…@')} did not answer (${error instanceof Error ? error.message : String(error)}).`);
    return undefined;
  }
  const schema = `bench_${label}_${randomBytes(4).toString('hex')}`;
  const schemaUrl = new URL(url);
  schemaUrl.searchParams.set('schema', schema);
  try {
    return await run(schemaUrl.toString());
  } finally {
    await withClient(url, (client) => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
  }
}
