import { activityFromRows, activityQuery } from '../activity-sql.ts';
import { eventListQuery, jobCountQuery, jobListQuery, READ_SQL, statsFromRows, statsSince } from '../read-sql.ts';
import { eventFromRow, jobFromRow, messageFromRow } from '../row-mappers.ts';
import type { Store } from '../types.ts';
import type { PgDatabase } from './pool.ts';

export type ReadMethods = Pick<Store, 'stats' | 'listJobs' | 'countJobs' | 'listEvents' | 'activity' | 'getMessage' | 'cancelJob'>;

/** The PostgreSQL engine's read models (admin API, metrics) and the admin's cancel. */
export function postgresReads(db: PgDatabase): ReadMethods {
  return {
    async stats(now = Date.now()) {
      return statsFromRows(await db.query(READ_SQL.stats, [statsSince(now)]), now);
    },
    async listJobs(query) {
      const { sql, params } = jobListQuery(query, 'postgres');
      return (await db.query(sql, params)).map(jobFromRow);
    },
    async countJobs(filter) {
      const { sql, params } = jobCountQuery(filter, 'postgres');
      const [row] = await db.query(sql, params);
      return Number(row?.n ?? 0);
    },
    async listEvents(query) {
      const { sql, params } = eventListQuery(query);
      return (await db.query(sql, params)).map(eventFromRow);
    },
    async activity(query) {
      const { sql, params } = activityQuery(query);
      return activityFromRows(await db.query(sql, params), query);
    },
    async getMessage(id) {
      const [row] = await db.query(READ_SQL.getMessage, [id]);
      return row === undefined ? undefined : messageFromRow(row);
    },
    async cancelJob(id, reason, now = Date.now()) {
      const [row] = await db.query(READ_SQL.cancelJob, [id, reason, now]);
      return row === undefined ? undefined : jobFromRow(row);
    },
  };
}
