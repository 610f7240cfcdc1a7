import { DatabaseSync, type SQLInputValue } from 'node:sqlite';

import pg from 'pg';

import { channelTableStatements } from '../../../src/store/google-channel-migration.ts';
import { toSqlite } from '../../../src/store/sql.ts';
import type { SqlRunner } from '../../../src/store/sql-channel-store.ts';
import { newSchemaName, TEST_DATABASE_URL, testDatabase } from '../../support/real-store.ts';

/**
 * SqlRunners for the channel store's tests, one per engine, each on data of its own (a SQLite file
 * in a temp directory, a PostgreSQL schema), with the channel tables created from the migration.
 * They stand in for the engine hook the store will expose.
 */
export interface TestRunner {
  runner: SqlRunner;
  /** SQLite only: the database file, for a store opened on the same data. */
  file?: string;
  /** PostgreSQL only: the schema, for a store opened on the same data. */
  schema?: string;
  close(): Promise<void>;
}

export async function sqliteRunner(file?: string): Promise<TestRunner> {
  const own = file === undefined ? testDatabase('sqlite', 'google-channels') : undefined;
  const location = file ?? own!.file;
  const db = new DatabaseSync(location, { timeout: 5000 });
  db.exec('PRAGMA journal_mode = WAL');
  for (const statement of channelTableStatements('sqlite')) {
    // A file opened again (a restart) has its columns already; SQLite has no ADD COLUMN IF NOT EXISTS.
    const column = /^ALTER TABLE (\w+) ADD COLUMN (\w+)/.exec(statement);
    if (column !== null && (db.prepare(`PRAGMA table_info(${column[1]})`).all() as Array<{ name: string }>).some((row) => row.name === column[2])) continue;
    db.exec(statement.replace(/^CREATE (TABLE|INDEX) /, 'CREATE $1 IF NOT EXISTS '));
  }
  return {
    file: location,
    runner: {
      dialect: 'sqlite',
      query: async (sql, params = []) => db.prepare(toSqlite(sql)).all(...(params as SQLInputValue[])) as Array<Record<string, unknown>>,
    },
    async close() {
      db.close();
      await own?.drop();
    },
  };
}

export async function postgresRunner(schema = newSchemaName('google')): Promise<TestRunner> {
  if (TEST_DATABASE_URL === undefined) throw new Error('TEST_DATABASE_URL is not set');
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  await admin.end();
  const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 4, options: `-c search_path=${schema}` });
  for (const statement of channelTableStatements('postgres'))
    await pool.query(statement.replace(/^CREATE (TABLE|INDEX) /, 'CREATE $1 IF NOT EXISTS ').replace(/ ADD COLUMN /, ' ADD COLUMN IF NOT EXISTS '));
  return {
    schema,
    runner: { dialect: 'postgres', query: async (sql, params = []) => (await pool.query(sql, [...params])).rows as Array<Record<string, unknown>> },
    async close() {
      await pool.query(`DROP SCHEMA ${schema} CASCADE`);
      await pool.end();
    },
  };
}
