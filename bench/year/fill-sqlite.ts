import { DatabaseSync, type StatementSync } from 'node:sqlite';

import { openStore } from '../../src/store/open-store.ts';
import { benchLogger } from '../lib/null-logger.ts';
import type { FillWriter } from './fill.ts';
import { sqliteBytes } from './store-cache.ts';
import { FILLED_TABLES, type FilledTable } from './templates.ts';

/**
 * The SQLite fill: the store is created by the bridge's own openStore (its migrations, WAL), then
 * filled through a connection of the fill's own with prepared INSERTs, foreign keys on as the
 * bridge has them. Durability is off while filling (synchronous=OFF): the fill is set-up, not
 * what is measured, and a crash mid-fill leaves no finished meta, so the store is filled again.
 */
export async function sqliteWriter(file: string, columns: Record<FilledTable, string[]>): Promise<FillWriter> {
  const store = await openStore(`sqlite:${file}`, { logger: benchLogger('warn') });
  await store.close();
  const db = new DatabaseSync(file, { enableForeignKeyConstraints: true });
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA wal_autocheckpoint = 10000');
  db.exec('PRAGMA synchronous = OFF');
  db.exec('PRAGMA cache_size = -262144');
  const inserts = new Map<FilledTable, StatementSync>(
    FILLED_TABLES.map((table) => [
      table,
      db.prepare(`INSERT INTO ${table} (${columns[table].join(', ')}) VALUES (${columns[table].map(() => '?').join(', ')})`),
    ]),
  );
  const setSupersededBy = db.prepare('UPDATE jobs SET superseded_by = ? WHERE id = ?');
  const max = (table: string, column: string) => Number((db.prepare(`SELECT COALESCE(MAX(${column}), 0) AS m FROM ${table}`).get() as { m: number }).m);

  return {
    async base() {
      return { message: max('inbound_messages', 'id'), event: max('inbound_events', 'id'), job: max('jobs', 'id'), meeting: max('meetings', 'id') };
    },
    async write(chunk) {
      db.exec('BEGIN');
      try {
        for (const table of FILLED_TABLES) {
          const insert = inserts.get(table)!;
          for (const row of chunk.rows[table]) insert.run(...row);
        }
        for (const [job, successor] of chunk.supersededBy) setSupersededBy.run(successor, job);
        db.exec('COMMIT');
      } catch (error) {
        db.exec('ROLLBACK');
        throw error;
      }
    },
    async finish() {
      db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      db.close();
      return sqliteBytes(file);
    },
  };
}
