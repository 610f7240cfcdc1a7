import { createReadMethods, type ReadMethods } from '../read-methods.ts';
import { READ_SQL } from '../read-sql.ts';
import { jobFromRow } from '../row-mappers.ts';
import type { Param, SqliteQueries } from './queries.ts';

type Run = <T>(work: () => T) => Promise<T>;

/** The SQLite engine's read models (admin API, metrics) and the admin's cancel (a write, so batched). */
export function sqliteReads(q: SqliteQueries, read: Run, write: Run): ReadMethods {
  return {
    ...createReadMethods('sqlite', (sql, params) => read(() => q.all(sql, ...(params as Param[])))),
    cancelJob: (id, reason, now) =>
      write(() => {
        const row = q.get(READ_SQL.cancelJob, id, reason, now ?? Date.now());
        return row === undefined ? undefined : jobFromRow(row);
      }),
  };
}
