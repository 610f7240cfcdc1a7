import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import pg from 'pg';

import { openStore } from '../../src/store/open-store.ts';
import type { Job, Store } from '../../src/store/types.ts';
import { STORE_TABLES, type StoredCounts, tableCounts } from './stored-rows.ts';

/*
 * A database of a test's own on either engine: a SQLite file in a temporary directory of its own,
 * or a PostgreSQL schema of its own under TEST_DATABASE_URL. Tests that prove "nothing stored" run
 * on both, since PostgreSQL refuses text SQLite keeps.
 */

export type Engine = 'sqlite' | 'postgres';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;

/** Both engines; PostgreSQL is reported as skipped when TEST_DATABASE_URL is not set. */
export const ENGINES: ReadonlyArray<{ engine: Engine; skip: boolean; title: string }> = [
  { engine: 'sqlite', skip: false, title: 'on SQLite' },
  {
    engine: 'postgres',
    skip: TEST_DATABASE_URL === undefined,
    title: `on PostgreSQL${TEST_DATABASE_URL === undefined ? ' (skipped: TEST_DATABASE_URL not set)' : ''}`,
  },
];

/** A schema name of its own: `<prefix>_<8 hex>` (a lower-case SQL identifier, as open-store.ts requires). */
export const newSchemaName = (prefix: string) => `${prefix}_${randomBytes(4).toString('hex')}`;

/** DATABASE_URL for a store or a bridge in `schema` (open-store.ts reads `?schema=`). */
export function databaseUrlWithSchema(url: string, schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('schema', schema);
  return parsed.toString();
}

export interface TestDatabase {
  engine: Engine;
  /** Its DATABASE_URL (`sqlite:<file>`, or TEST_DATABASE_URL with `?schema=`): for startBridge, a child process or a second store. */
  url: string;
  /** SQLite only: the database file, for the readers in stored-rows.ts. */
  file?: string;
  /** PostgreSQL only: the schema (created by the first store opened on it). */
  schema?: string;
  /** Rows in the store's tables, read over a connection of the test's own. */
  counts(): Promise<StoredCounts>;
  /** Removes the directory, or drops the schema. */
  drop(): Promise<void>;
}

/** Opens nothing: a store, a bridge or a child process opens the database by its `url`. */
export function testDatabase(engine?: 'sqlite', prefix?: string): TestDatabase & { file: string };
export function testDatabase(engine: Engine, prefix?: string): TestDatabase;
export function testDatabase(engine: Engine = 'sqlite', prefix = 'test'): TestDatabase {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(path.join(tmpdir(), `${prefix}-`));
    const file = path.join(dir, 'bridge.db');
    return { engine, url: `sqlite:${file}`, file, counts: async () => tableCounts(file), drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  if (TEST_DATABASE_URL === undefined) throw new Error('TEST_DATABASE_URL is not set');
  const schema = newSchemaName(prefix.replaceAll('-', '_'));
  return {
    engine,
    url: databaseUrlWithSchema(TEST_DATABASE_URL, schema),
    schema,
    counts: () =>
      asPostgresAdmin(async (client) => {
        const entries = [];
        for (const [name, table] of Object.entries(STORE_TABLES))
          entries.push([name, Number((await client.query(`SELECT COUNT(*) AS n FROM "${schema}"."${table}"`)).rows[0].n)]);
        return Object.fromEntries(entries) as StoredCounts;
      }),
    drop: () => asPostgresAdmin((client) => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)).then(() => undefined),
  };
}

/** Runs `work` on a PostgreSQL client of the test's own under TEST_DATABASE_URL, closed after it. */
export async function asPostgresAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export interface RealStore extends TestDatabase {
  store: Store;
  /** Closes the store, then drops its database. */
  close(): Promise<void>;
}

/** The real store (openStore: migrated, ready to use) on a database of the test's own. */
export async function openRealStore(engine?: 'sqlite', prefix?: string): Promise<RealStore & { file: string }>;
export async function openRealStore(engine: Engine, prefix?: string): Promise<RealStore>;
export async function openRealStore(engine: Engine = 'sqlite', prefix = 'test'): Promise<RealStore> {
  const database = testDatabase(engine, prefix);
  const store = await openStore(database.url, { poolMax: 4 });
  return {
    ...database,
    store,
    close: async () => {
      await store.close();
      await database.drop();
    },
  };
}

/** Claims the pending job with this id, as a worker would before calling its handler (`limit`: how many it claims at once). */
export async function claimJob(store: Store, jobId: number, limit = 100): Promise<Job> {
  const claimed = await store.claim({ owner: 'test-worker', limit, leaseMs: 60_000 });
  const mine = claimed.find((job) => job.id === jobId);
  if (!mine) throw new Error(`job ${jobId} was not claimable`);
  return mine;
}
