import type { Logger } from '../../core/logger.ts';
import type { PgDatabase } from './pool.ts';

/**
 * PostgreSQL's triggers append deltas to `count_deltas` instead of updating counters in place
 * (read-model-migration.ts says why). The fold moves them into `store_counts` and
 * `activity_counts`, one transaction per batch: the DELETE … RETURNING takes exactly the deltas it
 * adds, so a delta committed meanwhile waits for the next fold and none is added twice; the
 * advisory lock keeps instances from folding at the same time (they would only queue on the
 * counter rows). Reads add the deltas not yet folded, so how often this runs changes how many
 * rows a read adds up, never its answer.
 */

const FOLD_BATCH = 50_000;
const FOLD_INTERVAL_MS = 2000;

const FOLD_SQL = `WITH lock AS (SELECT pg_try_advisory_xact_lock(hashtext('crm-sync-bridge fold'), hashtext(current_schema())) AS held),
  moved AS (
    DELETE FROM count_deltas WHERE id IN (SELECT id FROM count_deltas WHERE (SELECT held FROM lock) ORDER BY id LIMIT ${FOLD_BATCH})
    RETURNING name, at, n
  ),
  counts AS (
    INSERT INTO store_counts (name, n) SELECT name, SUM(n) FROM moved WHERE at IS NULL GROUP BY name ORDER BY name
    ON CONFLICT (name) DO UPDATE SET n = store_counts.n + EXCLUDED.n
  ),
  activity AS (
    INSERT INTO activity_counts (span, bucket, what, kind, n)
    SELECT s.span, (m.at / s.span) * s.span, split_part(m.name, '|', 2), split_part(m.name, '|', 3), SUM(m.n)
    FROM moved m CROSS JOIN (VALUES (CAST(60000 AS BIGINT)), (CAST(3600000 AS BIGINT))) AS s(span)
    WHERE m.at IS NOT NULL GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
    ON CONFLICT (span, bucket, what, kind) DO UPDATE SET n = activity_counts.n + EXCLUDED.n
  )
  SELECT COUNT(*) AS n FROM moved`;

/**
 * Folds until no delta is left (or another instance holds the fold); returns how many it moved.
 * After a burst (a bulk load, a retention pass) the emptied table is vacuumed at once: until
 * autovacuum comes by, every read of the deltas would step over the dead rows.
 */
export async function foldCounts(db: PgDatabase): Promise<number> {
  let total = 0;
  for (;;) {
    const [row] = await db.query(FOLD_SQL);
    const moved = Number(row?.n ?? 0);
    total += moved;
    if (moved < FOLD_BATCH) break;
  }
  if (total >= FOLD_BATCH) await db.query('VACUUM count_deltas');
  return total;
}

/** Folds every FOLD_INTERVAL_MS (a fold still running skips the tick) until stopped; a failed fold is logged and tried again next time. */
export function startCountFold(db: PgDatabase, logger: Logger): { stop(): Promise<void> } {
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    running ??= foldCounts(db)
      .catch((error: unknown) => logger.warn('folding the store counters failed; retried next interval', { error }))
      .finally(() => {
        running = undefined;
      });
  }, FOLD_INTERVAL_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
