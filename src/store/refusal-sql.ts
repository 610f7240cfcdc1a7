import type { StepRunner } from './meeting-identities.ts';
import type { Statement, Steps } from './meeting-identity-steps.ts';
import type { RefusalBatch, RefusalKeep, RefusalStore, RefusalTotals } from './refusal-types.ts';
import { num } from './row-mappers.ts';
import { limitParam } from './sql.ts';

/**
 * RefusalStore's SQL, written once for both engines as steps (meeting-identity-steps.ts): SQLite
 * runs a flush inside one write batch of its group commit, PostgreSQL inside one transaction.
 * Several instances on one PostgreSQL add to the same minute's row, so the upsert adds counts.
 */

const statement = (sql: string, params: unknown[] = []): Statement => ({ sql, params });

const UPSERT_COUNT = `INSERT INTO refusal_counts (route, reason, bucket_start, refused, last_at) VALUES ($1, $2, CAST($3 AS BIGINT), CAST($4 AS BIGINT), CAST($5 AS BIGINT))
  ON CONFLICT (route, reason, bucket_start) DO UPDATE SET refused = refusal_counts.refused + excluded.refused,
    last_at = CASE WHEN excluded.last_at > refusal_counts.last_at THEN excluded.last_at ELSE refusal_counts.last_at END`;
const INSERT_EXAMPLE = `INSERT INTO refusal_examples (route, reason, sender, at) VALUES ($1, $2, $3, CAST($4 AS BIGINT))`;
// The newest `keep` of one route and reason stay; ties on time keep the later row.
const PRUNE_EXAMPLES = `DELETE FROM refusal_examples WHERE route = $1 AND reason = $2 AND id NOT IN (
  SELECT id FROM refusal_examples WHERE route = $1 AND reason = $2 ORDER BY at DESC, id DESC ${limitParam('$3')})`;

/** One order for every instance's upserts: two flushes locking the same rows in opposite orders would deadlock. */
const byKey = (a: { route: string; reason: string }, b: { route: string; reason: string }) =>
  a.route.localeCompare(b.route) || a.reason.localeCompare(b.reason);

function* recordSteps(batch: RefusalBatch, keep: RefusalKeep): Steps<void> {
  const buckets = [...batch.buckets].sort((a, b) => byKey(a, b) || a.bucketStart - b.bucketStart);
  for (const bucket of buckets) yield statement(UPSERT_COUNT, [bucket.route, bucket.reason, bucket.bucketStart, bucket.count, bucket.lastAt]);
  const pairs = new Map<string, [string, string]>();
  for (const example of batch.examples) {
    yield statement(INSERT_EXAMPLE, [example.route, example.reason, example.sender, example.at]);
    pairs.set(JSON.stringify([example.route, example.reason]), [example.route, example.reason]);
  }
  const pruned = [...pairs.values()].sort(([routeA, reasonA], [routeB, reasonB]) =>
    byKey({ route: routeA, reason: reasonA }, { route: routeB, reason: reasonB }),
  );
  for (const [route, reason] of pruned) yield statement(PRUNE_EXAMPLES, [route, reason, keep.examples]);
  yield statement(`DELETE FROM refusal_counts WHERE bucket_start < CAST($1 AS BIGINT)`, [keep.since]);
  yield statement(`DELETE FROM refusal_examples WHERE at < CAST($1 AS BIGINT)`, [keep.since]);
}

function* totalsSteps(since: number): Steps<RefusalTotals> {
  const counts = yield statement(
    `SELECT route, reason, SUM(refused) AS refused, MAX(last_at) AS last_at FROM refusal_counts
     WHERE bucket_start >= CAST($1 AS BIGINT) GROUP BY route, reason`,
    [since],
  );
  const examples = yield statement(`SELECT route, reason, sender, at FROM refusal_examples WHERE at >= CAST($1 AS BIGINT) ORDER BY at DESC, id DESC`, [since]);
  return {
    counts: counts.map((row) => ({ route: String(row.route), reason: String(row.reason), count: num(row.refused), lastAt: num(row.last_at) })),
    examples: examples.map((row) => ({ route: String(row.route), reason: String(row.reason), sender: String(row.sender), at: num(row.at) })),
  };
}

/** RefusalStore over either engine: `run.write` is one transaction (SQLite: one non-durable write batch). */
export function createRefusalStore(run: StepRunner): RefusalStore {
  return {
    record: (batch, keep) => run.write(() => recordSteps(batch, keep)),
    totals: (since) => run.read(() => totalsSteps(since)),
  };
}
