import { withTestPreludes } from '../admin-read-hooks.ts';
import { createReadMethods, type ReadMethods, type ReadQuery } from '../read-methods.ts';
import { READ_SQL } from '../read-sql.ts';
import { jobFromRow } from '../row-mappers.ts';
import type { PgDatabase } from './pool.ts';

/**
 * The PostgreSQL engine's read models (admin API, metrics), whose statements `read` runs on the
 * admin pool (admin-pool.ts), and the admin's cancel, a write on the main pool.
 */
export function postgresReads(db: PgDatabase, read: ReadQuery): ReadMethods {
  return {
    ...createReadMethods('postgres', withTestPreludes('postgres', read)),
    async cancelJob(id, reason, now = Date.now()) {
      const [row] = await db.query(READ_SQL.cancelJob, [id, reason, now]);
      return row === undefined ? undefined : jobFromRow(row);
    },
  };
}
