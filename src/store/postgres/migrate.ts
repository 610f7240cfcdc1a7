import { MIGRATIONS_TABLE, migrationsFor } from '../migrations.ts';
import type { PgDatabase } from './pool.ts';
import { PG } from './sql.ts';

/**
 * Applies the migrations this schema has not seen, all in one transaction (DDL is transactional on
 * PostgreSQL) under an advisory lock, so instances starting together apply each version once.
 */
export async function migratePostgres(db: PgDatabase, now = Date.now()): Promise<number[]> {
  return db.transaction(async (client) => {
    await client.query(PG.lockMigrate);
    await client.query(MIGRATIONS_TABLE);
    const seen = new Set((await client.query('SELECT version FROM schema_migrations')).rows.map((row: { version: number }) => row.version));
    const applied: number[] = [];
    for (const migration of migrationsFor('postgres')) {
      if (seen.has(migration.version)) continue;
      for (const statement of migration.statements) await client.query(statement);
      await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [migration.version, migration.name, now]);
      applied.push(migration.version);
    }
    return applied;
  });
}

/** Creates the store's own schema when it names one (tests isolate themselves this way). */
export async function ensureSchema(db: PgDatabase, schema: string | undefined): Promise<void> {
  if (schema === undefined) return;
  try {
    await db.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  } catch (error) {
    // Two instances creating it at once: one wins, the other sees a unique violation. Either way it exists.
    if ((error as { code?: string }).code !== '23505') throw error;
  }
}
