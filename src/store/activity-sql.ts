import { type BuiltQuery, inList, type Params, placeholders } from './read-sql.ts';
import type { Row } from './row-mappers.ts';
import type { ActivityBucket, ActivityQuery } from './types.ts';

/** The ended states activity counts, as the jobs_ended index names them (so both engines can use it). */
const ENDED_STATES = `'succeeded', 'dead', 'skipped', 'superseded'`;

/**
 * Activity per bucket: the n-th bucket is [since + n × bucketMs, since + (n + 1) × bucketMs), so
 * n is the integer quotient of (time − since) by bucketMs (both engines divide BIGINTs as integers,
 * and the range makes the difference never negative). A job in an ended state is never written
 * again, so its updated_at is when it ended. Inbound events walk inbound_events_received, jobs
 * jobs_ended: the cost follows the range, not the table.
 */
export function activityQuery(query: ActivityQuery): BuiltQuery {
  const params: Params = [query.since, query.until, query.bucketMs];
  const add = placeholders(params);
  const range = (column: string) => `${column} >= CAST($1 AS BIGINT) AND ${column} < CAST($2 AS BIGINT)`;
  const bucket = (column: string) => `(${column} - CAST($1 AS BIGINT)) / CAST($3 AS BIGINT)`;
  const sql = `SELECT 'inbound' AS what, ${bucket('e.received_at')} AS bucket, COUNT(*) AS n FROM inbound_events e
    WHERE ${range('e.received_at')} GROUP BY 2
    UNION ALL SELECT j.state, ${bucket('j.updated_at')}, COUNT(*) FROM jobs j
    WHERE ${inList('j.kind', query.kinds, add)} AND j.state IN (${ENDED_STATES}) AND ${range('j.updated_at')} GROUP BY 1, 2
    UNION ALL SELECT 'rematched', ${bucket('r.updated_at')}, COUNT(*) FROM jobs r
    WHERE r.kind = 'rematch' AND r.state IN (${ENDED_STATES}) AND r.state = 'succeeded' AND ${range('r.updated_at')} GROUP BY 2`;
  return { sql, params };
}

export function activityFromRows(rows: Row[], query: ActivityQuery): ActivityBucket[] {
  const count = Math.max(0, Math.ceil((query.until - query.since) / query.bucketMs));
  const buckets = Array.from({ length: count }, (_, n): ActivityBucket => ({
    start: query.since + n * query.bucketMs,
    inbound: 0,
    succeeded: 0,
    dead: 0,
    skipped: 0,
    superseded: 0,
    rematched: 0,
  }));
  for (const row of rows) {
    const bucket = buckets[Number(row.bucket)];
    const what = String(row.what);
    if (
      bucket !== undefined &&
      (what === 'inbound' || what === 'succeeded' || what === 'dead' || what === 'skipped' || what === 'superseded' || what === 'rematched')
    ) {
      bucket[what] += Number(row.n);
    }
  }
  return buckets;
}
