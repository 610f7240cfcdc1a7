/**
 * Statements of enqueueReplays: a replay is inserted only when its original has no replay in the
 * way (see ReplayGuard). The check reads committed replays after the original's row is locked
 * (PostgreSQL) or inside the exclusive write transaction (SQLite), so it is atomic with the insert.
 * `$2` is the guard: 'anyReplay' counts every replay, 'activeReplay' only a pending or running one.
 */

const BLOCKING = `(CAST($2 AS TEXT) = 'anyReplay' OR r.state IN ('pending', 'running'))`;

export const REPLAY_SQL = {
  /** The newest replay of original $1 that stops a new one, if any (walks jobs_replay_of). */
  blockingReplay: `SELECT r.id FROM jobs r WHERE r.replay_of = $1 AND ${BLOCKING} ORDER BY r.id DESC LIMIT 1`,
} as const;

export const PG_REPLAY_SQL = {
  /**
   * Locks the originals, in id order so two callers locking overlapping sets cannot deadlock. A
   * second caller waits here until the first commits; its next statement then sees the replays
   * the first inserted (READ COMMITTED takes a new snapshot per statement).
   */
  lockOriginals: `SELECT id FROM jobs WHERE id = ANY(CAST($1 AS BIGINT[])) ORDER BY id FOR UPDATE`,
  /** Per original in $1, the newest replay that stops a new one. */
  blockingReplays: `SELECT r.replay_of, MAX(r.id) AS id FROM jobs r
    WHERE r.replay_of = ANY(CAST($1 AS BIGINT[])) AND ${BLOCKING} GROUP BY r.replay_of`,
} as const;
