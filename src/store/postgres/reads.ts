import { createReadMethods, type ReadMethods } from '../read-methods.ts';
import { READ_SQL } from '../read-sql.ts';
import { jobFromRow } from '../row-mappers.ts';
import type { PgDatabase } from './pool.ts';

/** The PostgreSQL engine's read models (admin API, metrics) and the admin's cancel. */
export function postgresReads(db: PgDatabase): ReadMethods {
  return {
    ...createReadMethods('postgres', (sql, params) => db.query(sql, [...params])),
    async cancelJob(id, reason, now = Date.now()) {
      const [row] = await db.query(READ_SQL.cancelJob, [id, reason, now]);
      return row === undefined ? undefined : jobFromRow(row);
    },
  };
}
