import { withTestPreludes } from '../admin-read-hooks.ts';
import { createReadMethods, type ReadMethods, type ReadQuery } from '../read-methods.ts';
import { READ_SQL } from '../read-sql.ts';
import { jobFromRow } from '../row-mappers.ts';
import type { SqliteQueries } from './queries.ts';

type Run = <T>(work: () => T) => Promise<T>;

/**
 * The SQLite engine's read models (admin API, metrics) and the admin's cancel (a write, so batched).
 * `read` runs their statements: on the read threads for a file (read-threads.ts), in-thread for
 * `:memory:`, which no other connection can open.
 */
export function sqliteReads(q: SqliteQueries, read: ReadQuery, write: Run): ReadMethods {
  return {
    ...createReadMethods('sqlite', withTestPreludes('sqlite', read)),
    cancelJob: (id, reason, now) =>
      write(() => {
        const row = q.get(READ_SQL.cancelJob, id, reason, now ?? Date.now());
        return row === undefined ? undefined : jobFromRow(row);
      }),
  };
}
