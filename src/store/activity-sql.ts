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
function rawActivityQuery(query: ActivityQuery): BuiltQuery {
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

/**
 * The roll-up's span for a query: the longest of an hour or a minute that divides the bucket and
 * on which since and until both fall (read-model-migration.ts keeps both). Without one (an
 * operator's odd instant), the raw rows are counted: the range is then at most a day by the
 * minute or the buckets are long, and the raw query reads the range only.
 */
function rollupSpan(query: Pick<ActivityQuery, 'since' | 'until' | 'bucketMs'>): number | undefined {
  return ROLLUP_SPANS.find((span) => query.bucketMs % span === 0 && query.since % span === 0 && query.until % span === 0);
}

/**
 * Activity from the roll-up: its rows in the range, and on PostgreSQL the deltas the fold has not
 * moved yet (read-model-migration.ts), both as (name, at, n) and bucketed by activityFromRows.
 */
export function activityQuery(query: ActivityQuery): BuiltQuery {
  const span = rollupSpan(query);
  if (span === undefined) return rawActivityQuery(query);
  const params: Params = [query.since, query.until, span];
  const add = placeholders(params);
  const wanted = `(what = 'inbound' OR ${inList('kind', query.kinds, add)} OR (kind = 'rematch' AND what = 'succeeded'))`;
  const sql = `SELECT 'activity|' || what || '|' || kind AS name, bucket AS at, n FROM activity_counts
    WHERE span = CAST($3 AS BIGINT) AND bucket >= CAST($1 AS BIGINT) AND bucket < CAST($2 AS BIGINT) AND ${wanted}
    UNION ALL SELECT name, at, n FROM count_deltas WHERE name LIKE 'activity|%' AND at >= CAST($1 AS BIGINT) AND at < CAST($2 AS BIGINT)`;
  return { sql, params };
}

const ROLLUP_SPANS = [3_600_000, 60_000];
type What = 'inbound' | 'succeeded' | 'dead' | 'skipped' | 'superseded' | 'rematched';
const ENDED = new Set(['succeeded', 'dead', 'skipped', 'superseded']);

/** A roll-up or delta row's name (`activity|what|kind`) as the bucket field it adds to, if the query counts it. */
function counted(name: string, kinds: readonly string[]): What | undefined {
  const [, what = '', kind = ''] = name.split('|');
  if (what === 'inbound') return 'inbound';
  if (kind === 'rematch' && what === 'succeeded') return 'rematched';
  return ENDED.has(what) && kinds.includes(kind) ? (what as What) : undefined;
}

export function activityFromRows(rows: Row[], query: ActivityQuery): ActivityBucket[] {
  const buckets = emptyBuckets(query);
  if (rollupSpan(query) === undefined) return rawActivityFromRows(rows, buckets);
  for (const row of rows) {
    const what = counted(String(row.name), query.kinds);
    const bucket = buckets[Math.floor((Number(row.at) - query.since) / query.bucketMs)];
    if (what !== undefined && bucket !== undefined) bucket[what] += Number(row.n);
  }
  return buckets;
}

function emptyBuckets(query: ActivityQuery): ActivityBucket[] {
  const count = Math.max(0, Math.ceil((query.until - query.since) / query.bucketMs));
  return Array.from({ length: count }, (_, n): ActivityBucket => ({
    start: query.since + n * query.bucketMs,
    inbound: 0,
    succeeded: 0,
    dead: 0,
    skipped: 0,
    superseded: 0,
    rematched: 0,
  }));
}

function rawActivityFromRows(rows: Row[], buckets: ActivityBucket[]): ActivityBucket[] {
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
