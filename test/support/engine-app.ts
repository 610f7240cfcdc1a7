import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';

import pg from 'pg';

import { type AppDeps, createApp } from '../../src/app.ts';
import { type Config, parseConfig, secretValues } from '../../src/core/config.ts';
import type { Logger } from '../../src/core/logger.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/types.ts';
import { captureLogs, type LogCapture } from './log-capture.ts';

/*
 * The real app (createApp) on a real store of either engine: a SQLite file in a directory of its
 * own, or a PostgreSQL schema of its own under TEST_DATABASE_URL (dropped on close). Tests that
 * prove "nothing stored" run on both, since PostgreSQL refuses text SQLite keeps.
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

export interface StoredCounts {
  messages: number;
  events: number;
  jobs: number;
  calendars: number;
}

export interface EngineApp {
  app: ReturnType<typeof createApp>;
  store: Store;
  config: Config;
  logs: LogCapture;
  /** Rows in the store's tables, read over a connection of the test's own. */
  counts(): Promise<StoredCounts>;
  close(): Promise<void>;
}

const TABLES = { messages: 'inbound_messages', events: 'inbound_events', jobs: 'jobs', calendars: 'google_calendars' } as const;

async function sqliteStore(): Promise<{ store: Store; counts: () => Promise<StoredCounts>; dispose: () => Promise<void> }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'engine-app-'));
  const file = path.join(dir, 'bridge.db');
  const store = await openStore(`sqlite:${file}`);
  const counts = async () => {
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      const count = (table: string) => Number((db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number | bigint }).n);
      return Object.fromEntries(Object.entries(TABLES).map(([name, table]) => [name, count(table)])) as unknown as StoredCounts;
    } finally {
      db.close();
    }
  };
  return { store, counts, dispose: async () => rmSync(dir, { recursive: true, force: true }) };
}

async function postgresStore(): Promise<{ store: Store; counts: () => Promise<StoredCounts>; dispose: () => Promise<void> }> {
  if (TEST_DATABASE_URL === undefined) throw new Error('TEST_DATABASE_URL is not set');
  const schema = `edge_${randomBytes(6).toString('hex')}`;
  const store = await openStore(TEST_DATABASE_URL, { schema, poolMax: 4 });
  const admin = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  const counts = () =>
    admin(async (client) => {
      const entries = [];
      for (const [name, table] of Object.entries(TABLES))
        entries.push([name, Number((await client.query(`SELECT COUNT(*) AS n FROM "${schema}"."${table}"`)).rows[0].n)]);
      return Object.fromEntries(entries) as StoredCounts;
    });
  return { store, counts, dispose: () => admin((client) => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)).then(() => undefined) };
}

/** The app on a fresh store of `engine`, configured by `env` through the real config schema. */
export async function startEngineApp(
  engine: Engine,
  options: { env?: Record<string, string>; deps?: (store: Store, logger: Logger) => Partial<AppDeps> } = {},
): Promise<EngineApp> {
  const { store, counts, dispose } = engine === 'sqlite' ? await sqliteStore() : await postgresStore();
  const config = parseConfig({ NODE_ENV: 'test', LOG_LEVEL: 'debug', ...options.env });
  const logs = captureLogs({ secrets: secretValues(config) });
  const app = createApp({ config, logger: logs.logger, readiness: [], store, ...options.deps?.(store, logs.logger) });
  return {
    app,
    store,
    config,
    logs,
    counts,
    close: async () => {
      await store.close();
      await dispose();
    },
  };
}
