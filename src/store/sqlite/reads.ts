import { activityFromRows, activityQuery } from '../activity-sql.ts';
import type { ReadMethods } from '../postgres/reads.ts';
import { eventListQuery, jobCountQuery, jobListQuery, READ_SQL, statsFromRows, statsSince } from '../read-sql.ts';
import { eventFromRow, jobFromRow, messageFromRow } from '../row-mappers.ts';
import type { SqliteQueries } from './queries.ts';

type Run = <T>(work: () => T) => Promise<T>;

/** The SQLite engine's read models (admin API, metrics) and the admin's cancel (a write, so batched). */
export function sqliteReads(q: SqliteQueries, read: Run, write: Run): ReadMethods {
  return {
    stats: (now) =>
      read(() => {
        const at = now ?? Date.now();
        return statsFromRows(q.all(READ_SQL.stats, statsSince(at)), at);
      }),
    listJobs: (query) =>
      read(() => {
        const { sql, params } = jobListQuery(query, 'sqlite');
        return q.all(sql, ...params).map(jobFromRow);
      }),
    countJobs: (filter) =>
      read(() => {
        const { sql, params } = jobCountQuery(filter, 'sqlite');
        return Number(q.get(sql, ...params)?.n ?? 0);
      }),
    listEvents: (query) =>
      read(() => {
        const { sql, params } = eventListQuery(query);
        return q.all(sql, ...params).map(eventFromRow);
      }),
    activity: (query) =>
      read(() => {
        const { sql, params } = activityQuery(query);
        return activityFromRows(q.all(sql, ...params), query);
      }),
    getMessage: (id) =>
      read(() => {
        const row = q.get(READ_SQL.getMessage, id);
        return row === undefined ? undefined : messageFromRow(row);
      }),
    cancelJob: (id, reason, now) =>
      write(() => {
        const row = q.get(READ_SQL.cancelJob, id, reason, now ?? Date.now());
        return row === undefined ? undefined : jobFromRow(row);
      }),
  };
}
