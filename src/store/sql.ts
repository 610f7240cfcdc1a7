/**
 * Statements both engines run as written. Placeholders are PostgreSQL's `$n`; the SQLite engine
 * rewrites them to `?n` (same numbering). Casts are spelled `CAST(… AS …)`, which both accept and
 * which lets PostgreSQL type a parameter that appears only inside an expression.
 */

/** `$n` → `?n`: SQLite's numbered parameters bind positionally exactly like PostgreSQL's. */
export const toSqlite = (sql: string): string => sql.replace(/\$(\d+)/g, '?$1');

/**
 * A LIMIT taken from a parameter. Written bare (`LIMIT $2`), SQLite (3.53 in node:sqlite) spends
 * parse-and-plan time on every run of the statement, more than the claim query itself (measured:
 * 6-10 µs against 3 µs); as an expression it is bound like any other value. PostgreSQL reads both
 * the same.
 */
export const limitParam = (placeholder: string): string => `LIMIT CAST(${placeholder} AS INTEGER)`;

/** A pending job with another job of its key running (even with an expired lease) must wait for it. */
const KEY_FREE = `(j.coalesce_key IS NULL OR NOT EXISTS (
  SELECT 1 FROM jobs r WHERE r.state = 'running' AND r.coalesce_key = j.coalesce_key))`;

/** The pending job of this row's key, if any (at most one: jobs_pending_key is unique). */
const PENDING_OF_KEY = `(SELECT p.id FROM jobs p WHERE p.coalesce_key = jobs.coalesce_key AND p.state = 'pending')`;

export const SQL = {
  /**
   * Writes here end without RETURNING: in SQLite (node:sqlite) a RETURNING clause costs about 20 µs a
   * statement, more than the write itself, so SQLite reads the rowid or the row afterwards;
   * PostgreSQL appends RETURNING, which saves it a round trip.
   */
  insertMessage: `INSERT INTO inbound_messages (source, sender_id, raw_payload, received_at) VALUES ($1, $2, $3, $4)`,

  insertEvent: `INSERT INTO inbound_events (message_id, source, sender_id, dedupe_key, parsed_payload, received_at, state)
    VALUES ($1, $2, $3, $4, $5, $6, 'received') ON CONFLICT (dedupe_key) DO NOTHING`,

  insertJob: `INSERT INTO jobs (kind, payload, coalesce_key, state, attempts, run_at, created_at, updated_at, event_id, replay_of)
    VALUES ($1, $2, $3, 'pending', 0, $4, $5, $5, $6, $7)`,

  /** Coalescing, step 1: the key's pending job (at most one) steps aside; its successor is filled in once inserted. */
  pendingOfKey: `SELECT id FROM jobs WHERE coalesce_key = $1 AND state = 'pending'`,
  supersede: `UPDATE jobs SET state = 'superseded', updated_at = $2 WHERE id = $1`,
  setSupersededBy: `UPDATE jobs SET superseded_by = $2 WHERE id = $1`,

  /** Running jobs whose lease expired (the worker crashed): claimable again, oldest lease first. */
  claimExpired: `SELECT j.id, j.coalesce_key, j.run_at FROM jobs j
    WHERE j.state = 'running' AND j.lease_until <= $1
      AND (j.coalesce_key IS NULL OR NOT EXISTS (SELECT 1 FROM jobs r
        WHERE r.state = 'running' AND r.coalesce_key = j.coalesce_key AND r.id <> j.id AND r.lease_until > $1))
    ORDER BY j.lease_until ${limitParam('$2')}`,

  /** Walks jobs_pending_due in order and stops at LIMIT, so the cost is flat in queue depth. */
  claimPending: `SELECT j.id, j.coalesce_key, j.run_at FROM jobs j
    WHERE j.state = 'pending' AND j.run_at <= $1 AND ${KEY_FREE}
    ORDER BY j.run_at, j.id ${limitParam('$2')}`,

  markClaimed: `UPDATE jobs SET state = 'running', lease_owner = $2, lease_until = $3, updated_at = $4 WHERE id = $1`,

  /**
   * Applies an outcome while the caller still holds the lease. A job going back to pending while a
   * newer job of its key is already pending is superseded by that one instead: the newer job carries
   * the newer data, and jobs_pending_key allows one pending job per key. PostgreSQL appends
   * `RETURNING coalesce_key`; SQLite reads the key afterwards (RETURNING costs SQLite ~20 µs a row).
   */
  finish: `UPDATE jobs SET
      state = CASE WHEN CAST($3 AS TEXT) = 'pending' AND ${PENDING_OF_KEY} IS NOT NULL THEN 'superseded' ELSE CAST($3 AS TEXT) END,
      superseded_by = CASE WHEN CAST($3 AS TEXT) = 'pending' THEN ${PENDING_OF_KEY} ELSE superseded_by END,
      run_at = COALESCE(CAST($4 AS BIGINT), run_at),
      last_error = COALESCE(CAST($5 AS TEXT), last_error),
      result = COALESCE(CAST($6 AS TEXT), result),
      attempts = attempts + CAST($7 AS INTEGER),
      lease_owner = NULL, lease_until = NULL, updated_at = CAST($8 AS BIGINT)
    WHERE id = $1 AND state = 'running' AND lease_owner = $2`,

  extendLease: `UPDATE jobs SET lease_until = $3, updated_at = $4 WHERE id = $1 AND state = 'running' AND lease_owner = $2`,

  insertAttempt: `INSERT INTO attempts (job_id, started_at, duration_ms, status, error_class, response_excerpt, upstream_request_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7)`,

  updateEvent: `UPDATE inbound_events SET state = $2, state_reason = $3 WHERE id = $1`,

  /** Graceful shutdown: this owner's running jobs go back to the queue (coalescing as in finish). */
  releaseLeases: `UPDATE jobs SET
      state = CASE WHEN ${PENDING_OF_KEY} IS NOT NULL THEN 'superseded' ELSE 'pending' END,
      superseded_by = ${PENDING_OF_KEY},
      run_at = $2, lease_owner = NULL, lease_until = NULL, updated_at = $2
    WHERE state = 'running' AND lease_owner = $1
    RETURNING id`,

  /** The first pending job that is not waiting for a running job of its key. */
  nextPendingDue: `SELECT j.run_at FROM jobs j WHERE j.state = 'pending' AND ${KEY_FREE} ORDER BY j.run_at, j.id LIMIT 1`,
  nextLeaseExpiry: `SELECT MIN(lease_until) AS lease_until FROM jobs WHERE state = 'running'`,

  getJob: `SELECT * FROM jobs WHERE id = $1`,
  jobKey: `SELECT coalesce_key FROM jobs WHERE id = $1`,
  getAttempts: `SELECT * FROM attempts WHERE job_id = $1 ORDER BY id`,
  getEvent: `SELECT * FROM inbound_events WHERE id = $1`,
  lastSucceeded: `SELECT * FROM jobs WHERE state = 'succeeded' AND coalesce_key = $2 AND kind = $1
    ORDER BY updated_at DESC, id DESC LIMIT 1`,

  getBucket: `SELECT tokens, updated_at, blocked_until FROM rate_buckets WHERE key = $1`,
  putBucket: `INSERT INTO rate_buckets (key, tokens, updated_at, blocked_until) VALUES ($1, $2, $3, $4)
    ON CONFLICT (key) DO UPDATE SET tokens = excluded.tokens, updated_at = excluded.updated_at, blocked_until = excluded.blocked_until`,

  ping: `SELECT 1 AS ok`,
} as const;
