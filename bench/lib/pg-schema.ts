import { randomBytes } from 'node:crypto';

import pg from 'pg';

/** PostgreSQL for the benchmarks: TEST_DATABASE_URL, or the local test database the CI uses. */
export const postgresUrl = (): string => process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A fresh schema name per use; the store creates it, `dropSchema` removes it afterwards. */
export const benchSchema = (label: string): string => `bench_${label}_${randomBytes(4).toString('hex')}`;

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Why PostgreSQL cannot be used, or undefined when it answers. */
export async function postgresUnavailable(url: string): Promise<string | undefined> {
  try {
    await withClient(url, (client) => client.query('SELECT 1'));
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

export async function dropSchema(url: string, schema: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`refusing to drop schema ${JSON.stringify(schema)}`);
  await withClient(url, (client) => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
}

/** The URL with `?schema=` set: the bridge's own way of putting a process in one schema (open-store.ts). */
export function schemaUrl(url: string, schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('schema', schema);
  return parsed.toString();
}
