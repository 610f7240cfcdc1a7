import { DatabaseSync } from 'node:sqlite';

import { asPostgresAdmin, type TestDatabase } from '../../support/real-store.ts';

/**
 * Makes the database refuse every insert into `table` with `message` (a trigger, on either engine),
 * as a store failure the bridge did not cause; resolves the undo. Written over a connection of the
 * test's own, beside the running bridge.
 */
export async function refuseInserts(database: TestDatabase, table: string, message: string): Promise<() => Promise<void>> {
  if (database.file !== undefined) {
    const file = database.file;
    const run = (sql: string) => {
      const db = new DatabaseSync(file, { timeout: 5_000 });
      try {
        db.exec(sql);
      } finally {
        db.close();
      }
    };
    run(`CREATE TRIGGER test_refuse_insert BEFORE INSERT ON ${table} BEGIN SELECT RAISE(ABORT, '${message}'); END`);
    return async () => run(`DROP TRIGGER test_refuse_insert`);
  }
  const schema = database.schema!;
  await asPostgresAdmin(async (client) => {
    await client.query(`CREATE FUNCTION "${schema}".test_refuse_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION '${message}'; END $$`);
    await client.query(
      `CREATE TRIGGER test_refuse_insert BEFORE INSERT ON "${schema}".${table} FOR EACH ROW EXECUTE FUNCTION "${schema}".test_refuse_insert()`,
    );
  });
  return () => asPostgresAdmin(async (client) => void (await client.query(`DROP TRIGGER test_refuse_insert ON "${schema}".${table}`)));
}
