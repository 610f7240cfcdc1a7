import type { DatabaseSync } from 'node:sqlite';

import { MIGRATIONS_TABLE, migrationsFor } from '../migrations.ts';

/**
 * Applies the migrations this database has not seen, each in its own IMMEDIATE transaction (which
 * takes the write lock, so two processes starting on one file do not both apply a version).
 */
export function migrateSqlite(db: DatabaseSync, now = Date.now()): number[] {
  db.exec(MIGRATIONS_TABLE);
  const applied: number[] = [];
  for (const migration of migrationsFor('sqlite')) {
    db.exec('BEGIN IMMEDIATE');
    try {
      const seen = db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(migration.version);
      if (seen === undefined) {
        for (const statement of migration.statements) db.exec(statement);
        db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(migration.version, migration.name, now);
        applied.push(migration.version);
      }
      db.exec('COMMIT');
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
  }
  return applied;
}
