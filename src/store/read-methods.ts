import { activityFromRows, activityQuery } from './activity-sql.ts';
import { EVENT_INDEX, foldAscii, planSearch, type SearchPlan, WALK_WINDOW } from './job-search-sql.ts';
import { meetingActivityFromRow, meetingActivitySql, meetingKeysFromRows, meetingKeysQuery } from './meeting-search-sql.ts';
import type { Dialect } from './migrations.ts';
import { eventListQuery, jobCountQuery, jobListQuery, READ_SQL } from './read-sql.ts';
import { eventFromRow, jobFromRow, messageFromRow, type Row } from './row-mappers.ts';
import { countersFromRows, deadWindowStart, probesQuery, STATS_SQL, statsFrom } from './stats-sql.ts';
import type { JobFilter, Store } from './types.ts';

export type ReadMethods = Pick<
  Store,
  'stats' | 'listJobs' | 'countJobs' | 'listEvents' | 'meetingKeysOf' | 'meetingActivity' | 'activity' | 'getMessage' | 'cancelJob'
>;

/** One read statement's rows; each engine decides where it runs (its admin reads stay off the ack path). */
export type ReadQuery = (sql: string, params: ReadonlyArray<string | number | null>) => Promise<Row[]>;

/**
 * The read models behind the admin API and the metrics, the same on both engines: SQL from
 * read-sql.ts, stats-sql.ts, activity-sql.ts and job-search-sql.ts, run through `read`.
 */
export function createReadMethods(dialect: Dialect, read: ReadQuery): Omit<ReadMethods, 'cancelJob'> {
  const planFor = async (filter: JobFilter): Promise<SearchPlan | undefined> =>
    filter.textSearch === undefined ? undefined : planSearch(foldAscii(filter.textSearch), dialect, read);
  return {
    async stats(now = Date.now()) {
      const totals = countersFromRows(await read(STATS_SQL.counts, []));
      const kinds = [...new Set([...totals.jobs.values()].map((entry) => entry.kind))].sort();
      const pending = new Set([...totals.jobs.values()].filter((entry) => entry.state === 'pending').map((entry) => entry.kind));
      const { sql, params } = probesQuery(kinds, pending, deadWindowStart(now));
      return statsFrom(totals, await read(sql, params), now);
    },
    async listJobs(query) {
      const list = async (plan?: SearchPlan) => {
        const { sql, params } = jobListQuery(query, dialect, plan);
        return (await read(sql, params)).map(jobFromRow);
      };
      if (query.textSearch === undefined) return list();
      // A window of the newest documents first (job-search-sql.ts): a full page there is the exact answer.
      const windowed = await list({ kind: 'walk', windowRows: WALK_WINDOW });
      return windowed.length >= query.limit ? windowed : list(await planFor(query));
    },
    async countJobs(filter) {
      const { sql, params } = jobCountQuery(filter, dialect, await planFor(filter));
      const [row] = await read(sql, params);
      return Number(row?.n ?? 0);
    },
    async listEvents(query) {
      const list = async (plan?: SearchPlan) => {
        const { sql, params } = eventListQuery(query, dialect, plan);
        return (await read(sql, params)).map(eventFromRow);
      };
      if (query.textSearch === undefined) return list();
      const windowed = await list({ kind: 'walk', windowRows: WALK_WINDOW });
      return windowed.length >= query.limit ? windowed : list(await planSearch(foldAscii(query.textSearch), dialect, read, EVENT_INDEX));
    },
    async meetingKeysOf(eventIds) {
      if (eventIds.length === 0) return new Map();
      const { sql, params } = meetingKeysQuery(dialect, eventIds);
      return meetingKeysFromRows(await read(sql, params));
    },
    async meetingActivity(meetingKeys) {
      const sql = meetingActivitySql(dialect);
      const rows = await Promise.all(meetingKeys.map(async (key) => meetingActivityFromRow(key, (await read(sql, [key]))[0])));
      return rows.filter((row) => row !== undefined);
    },
    async activity(query) {
      const { sql, params } = activityQuery(query);
      return activityFromRows(await read(sql, params), query);
    },
    async getMessage(id) {
      const [row] = await read(READ_SQL.getMessage, [id]);
      return row === undefined ? undefined : messageFromRow(row);
    },
  };
}
