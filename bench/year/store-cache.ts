import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';

import pg from 'pg';

import { migrationsFor } from '../../src/store/migrations.ts';
import type { FilledTable } from './templates.ts';

/**
 * Where the filled stores live between runs, and whether one can be used again. A store is
 * reused when its fill finished for the same N and fill format and its schema_migrations holds
 * the migrations this code has (a new migration means the store's derived tables or indexes may
 * differ: it is filled again). Measuring adds the events it posts; past a small margin over N
 * the store is filled again too.
 * - SQLite: bench/.data/year-<N>.db (gitignored), its meta beside it;
 * - PostgreSQL: schema bench_year_<N> in the test database, its meta in bench/.data.
 */

export type Engine = 'SQLite' | 'PostgreSQL';

/** Bumped whenever the generator changes what it writes. */
export const FILL_FORMAT = 1;
export const dataDir = path.resolve(import.meta.dirname, '../.data');
export const postgresUrl = (): string => process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export const sqliteFile = (events: number): string => path.join(dataDir, `year-${events}.db`);
export const postgresSchema = (events: number): string => `bench_year_${events}`;
export function postgresSchemaUrl(events: number): string {
  const url = new URL(postgresUrl());
  url.searchParams.set('schema', postgresSchema(events));
  return url.toString();
}
const metaFile = (engine: Engine, events: number) => path.join(dataDir, `year-${engine === 'SQLite' ? 'sqlite' : 'postgres'}-${events}.json`);

export interface FillMeta {
  engine: Engine;
  events: number;
  fillFormat: number;
  schemaVersion: number;
  /** The year the events span ends here (epoch ms). */
  yearEnd: number;
  fillMs: number;
  /** Rows the fill inserted, by table. */
  rows: Record<FilledTable, number>;
  /** The store's size right after the fill, and per event. */
  bytes: number;
  filledAt: string;
}

export const codeSchemaVersion = (): number => Math.max(...migrationsFor('sqlite').map((migration) => migration.version));

export function readMeta(engine: Engine, events: number): FillMeta | undefined {
  const file = metaFile(engine, events);
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as FillMeta;
}

export function writeMeta(meta: FillMeta): void {
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(metaFile(meta.engine, meta.events), `${JSON.stringify(meta, null, 2)}\n`);
}

/** The SQLite file with its WAL and shared-memory files. */
export function sqliteBytes(file: string): number {
  return ['', '-wal', '-shm'].reduce((sum, suffix) => sum + (existsSync(file + suffix) ? statSync(file + suffix).size : 0), 0);
}

export async function withPg<T>(work: (client: pg.Client) => Promise<T>, url = postgresUrl()): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Every table of the schema (derived ones included), with indexes and TOAST. */
export const postgresBytes = (schema: string): Promise<number> =>
  withPg(async (client) => {
    const { rows } = await client.query(
      `SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'm')`,
      [schema],
    );
    return Number(rows[0]?.bytes ?? 0);
  });

/** The store's newest migration and its inbound events, read without opening (and so migrating) it; undefined when it does not exist. */
async function storeState(engine: Engine, events: number): Promise<{ version: number; events: number } | undefined> {
  if (engine === 'SQLite') {
    if (!existsSync(sqliteFile(events))) return undefined;
    const db = new DatabaseSync(sqliteFile(events), { readOnly: true });
    try {
      const version = Number((db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number }).v);
      const count = Number((db.prepare('SELECT COUNT(*) AS n FROM inbound_events').get() as { n: number }).n);
      return { version, events: count };
    } catch {
      return undefined;
    } finally {
      db.close();
    }
  }
  return withPg(async (client) => {
    const schema = postgresSchema(events);
    const exists = await client.query('SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2', [schema, 'inbound_events']);
    if (exists.rowCount === 0) return undefined;
    const version = await client.query(`SELECT MAX(version) AS v FROM "${schema}".schema_migrations`);
    const count = await client.query(`SELECT COUNT(*) AS n FROM "${schema}".inbound_events`);
    return { version: Number(version.rows[0]?.v), events: Number(count.rows[0]?.n) };
  });
}

/** The filled store's meta when it can be measured as it is; otherwise why not. */
export async function reusable(engine: Engine, events: number): Promise<{ meta: FillMeta } | { reason: string }> {
  const meta = readMeta(engine, events);
  if (meta === undefined) return { reason: 'no finished fill' };
  if (meta.fillFormat !== FILL_FORMAT) return { reason: `fill format ${meta.fillFormat}, now ${FILL_FORMAT}` };
  const state = await storeState(engine, events);
  if (state === undefined) return { reason: 'the store is gone' };
  if (state.version !== codeSchemaVersion()) return { reason: `schema version ${state.version}, the code has ${codeSchemaVersion()}` };
  // Each run adds what it posts and its retention pass removes the oldest day (1/365): within 2 % either way the year is the same.
  if (state.events < events * 0.98 || state.events > events * 1.02 + 5_000) return { reason: `${state.events} inbound events, ${events} filled` };
  return { meta };
}

/** Removes the store (and its meta) so it can be filled afresh. */
export async function dropStore(engine: Engine, events: number): Promise<void> {
  rmSync(metaFile(engine, events), { force: true });
  if (engine === 'SQLite') {
    for (const suffix of ['', '-wal', '-shm']) rmSync(sqliteFile(events) + suffix, { force: true });
    return;
  }
  await withPg((client) => client.query(`DROP SCHEMA IF EXISTS "${postgresSchema(events)}" CASCADE`));
}

/** `--clean`: every cached year store, of any N, on both engines. */
export async function dropAll(): Promise<string[]> {
  const dropped: string[] = [];
  if (existsSync(dataDir)) {
    for (const name of readdirSync(dataDir).filter((file) => file.startsWith('year-'))) {
      rmSync(path.join(dataDir, name), { force: true });
      dropped.push(`bench/.data/${name}`);
    }
  }
  await withPg(async (client) => {
    const { rows } = await client.query(`SELECT nspname FROM pg_namespace WHERE nspname LIKE 'bench\\_year\\_%'`);
    for (const row of rows as Array<{ nspname: string }>) {
      await client.query(`DROP SCHEMA "${row.nspname}" CASCADE`);
      dropped.push(`schema ${row.nspname}`);
    }
  }).catch(() => undefined);
  return dropped;
}
