import { JOB_PRIORITY } from './types.ts';

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

/**
 * A pending job with another job of its coalescing or serial key running (even with an expired
 * lease) must wait for it.
 */
const KEY_FREE = `(j.coalesce_key IS NULL OR NOT EXISTS (
  SELECT 1 FROM jobs r WHERE r.state = 'running' AND r.coalesce_key = j.coalesce_key))
  AND (j.serial_key IS NULL OR NOT EXISTS (
  SELECT 1 FROM jobs s WHERE s.state = 'running' AND s.serial_key = j.serial_key))`;

/**
 * The call slot the job's current run took at its claim: the job's newest. A retried job (or one
 * run again after a crash) also has the slots of its earlier runs, each a call that may have
 * reached the upstream, which a settle or refund of this run must leave alone.
 */
export const THIS_RUNS_SLOT = `(SELECT MAX(own.id) FROM rate_slots own WHERE own.job_id = $1)`;

/** What the claim needs of a candidate to pick among them (job-rules.ts pickClaimable). */
const CANDIDATE = `j.id, j.coalesce_key, j.serial_key, j.rate_key, j.priority, j.run_at`;

/** Running jobs whose lease expired (the worker crashed) and no other job of their keys holds a live lease. */
const EXPIRED = `j.state = 'running' AND j.lease_until <= $1
      AND (j.coalesce_key IS NULL OR NOT EXISTS (SELECT 1 FROM jobs r
        WHERE r.state = 'running' AND r.coalesce_key = j.coalesce_key AND r.id <> j.id AND r.lease_until > $1))
      AND (j.serial_key IS NULL OR NOT EXISTS (SELECT 1 FROM jobs s
        WHERE s.state = 'running' AND s.serial_key = j.serial_key AND s.id <> j.id AND s.lease_until > $1))`;

/** Expired-lease candidates of one budget: its key and the row limit are the placeholders given ($1 is now). */
export const expiredOfBudget = (key: string, limit: string): string =>
  `SELECT ${CANDIDATE} FROM jobs j WHERE ${EXPIRED} AND j.rate_key = ${key} ORDER BY j.lease_until ${limitParam(limit)}`;

/** Pending candidates of one budget in claim order, placeholders as in expiredOfBudget. */
export const pendingOfBudget = (key: string, limit: string): string => `SELECT ${CANDIDATE} FROM jobs j
    WHERE j.state = 'pending' AND j.rate_key = ${key} AND j.run_at <= $1 AND ${KEY_FREE}
    ORDER BY j.priority, j.run_at, j.id ${limitParam(limit)}`;

/** The pending job of this row's key, if any (at most one: jobs_pending_key is unique). */
const PENDING_OF_KEY = `(SELECT p.id FROM jobs p WHERE p.coalesce_key = jobs.coalesce_key AND p.state = 'pending')`;

/**
 * The earliest run time among pending jobs matching `filter`: one index walk per priority class
 * (jobs_pending_due orders by priority before run_at), each stopping at its first key-free job.
 */
function firstDue(filter: string): string {
  const perClass = Object.values(JOB_PRIORITY).map(
    (priority) => `SELECT * FROM (SELECT j.run_at FROM jobs j WHERE j.state = 'pending' ${filter} AND j.priority = ${priority} AND ${KEY_FREE}
      ORDER BY j.run_at, j.id LIMIT 1) AS p${priority}`,
  );
  return `SELECT MIN(run_at) AS run_at FROM (${perClass.join(' UNION ALL ')}) AS due`;
}

export const SQL = {
  /**
   * Writes here end without RETURNING: in SQLite (node:sqlite) a RETURNING clause costs about 20 µs a
   * statement, more than the write itself, so SQLite reads the rowid or the row afterwards;
   * PostgreSQL appends RETURNING, which saves it a round trip.
   */
  insertMessage: `INSERT INTO inbound_messages (source, sender_id, raw_payload, received_at) VALUES ($1, $2, $3, $4)`,

  insertEvent: `INSERT INTO inbound_events (message_id, source, sender_id, dedupe_key, parsed_payload, received_at, state)
    VALUES ($1, $2, $3, $4, $5, $6, 'received') ON CONFLICT (dedupe_key) DO NOTHING`,

  insertJob: `INSERT INTO jobs (kind, payload, coalesce_key, state, attempts, run_at, created_at, updated_at, event_id, replay_of,
      rate_key, priority, serial_key, source_version, superseded_by, last_error)
    VALUES ($1, $2, $3, $12, 0, $4, $5, $5, $6, $7, $8, $9, $10, $11, $13, $14)`,

  /** Coalescing, step 1: the key's pending job (at most one) steps aside; its successor is filled in once inserted. */
  pendingOfKey: `SELECT id FROM jobs WHERE coalesce_key = $1 AND state = 'pending'`,
  supersede: `UPDATE jobs SET state = 'superseded', updated_at = $2 WHERE id = $1`,
  /** A meeting cancelled at its source: what is pending for it will not be sent (FinishJob.cancelPending). */
  cancelPendingOfKey: `UPDATE jobs SET state = 'cancelled', last_error = $2, updated_at = $3 WHERE coalesce_key = $1 AND state = 'pending'`,
  setSupersededBy: `UPDATE jobs SET superseded_by = $2 WHERE id = $1`,

  /** Running jobs whose lease expired (the worker crashed): claimable again, oldest lease first. */
  claimExpired: `SELECT ${CANDIDATE} FROM jobs j WHERE ${EXPIRED} ORDER BY j.lease_until ${limitParam('$2')}`,
  /** The same, of one budget ($3) or of no budget. */
  claimExpiredOf: expiredOfBudget('$3', '$2'),
  claimExpiredUnpaced: `SELECT ${CANDIDATE} FROM jobs j WHERE ${EXPIRED} AND j.rate_key IS NULL ORDER BY j.lease_until ${limitParam('$2')}`,

  /**
   * Pending jobs of one budget ($3), or of none, in claim order. Each walks jobs_pending_due
   * (rate_key, priority, run_at, id) in order and stops at LIMIT, so the cost is flat in queue depth.
   */
  claimPendingOf: pendingOfBudget('$3', '$2'),
  claimPendingUnpaced: `SELECT ${CANDIDATE} FROM jobs j
    WHERE j.state = 'pending' AND j.rate_key IS NULL AND j.run_at <= $1 AND ${KEY_FREE}
    ORDER BY j.priority, j.run_at, j.id ${limitParam('$2')}`,
  /** Every pending job alike, when the claim names no budgets (tools and tests): sorts, so not for deep queues. */
  claimPending: `SELECT ${CANDIDATE} FROM jobs j
    WHERE j.state = 'pending' AND j.run_at <= $1 AND ${KEY_FREE}
    ORDER BY j.priority, j.run_at, j.id ${limitParam('$2')}`,

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
  setWatermark: `INSERT INTO crm_watermarks (object, modstamp, updated_at) VALUES ($1, $2, $3) ON CONFLICT (object) DO UPDATE SET modstamp = excluded.modstamp, updated_at = excluded.updated_at`,
  upsertMatchTouch: `INSERT INTO match_touches (kind, value, meeting_key, at) VALUES ($1, $2, $3, $4) ON CONFLICT (kind, value, meeting_key) DO UPDATE SET at = excluded.at`,
  insertMatchRecord: `INSERT INTO match_records (event_id, map_job_id, meeting_key, outcome, rule, summary, record, created_at, meeting_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,

  /** Graceful shutdown: this owner's running jobs go back to the queue (coalescing as in finish). */
  releaseLeases: `UPDATE jobs SET
      state = CASE WHEN ${PENDING_OF_KEY} IS NOT NULL THEN 'superseded' ELSE 'pending' END,
      superseded_by = ${PENDING_OF_KEY},
      run_at = $2, lease_owner = NULL, lease_until = NULL, updated_at = $2
    WHERE state = 'running' AND lease_owner = $1
    RETURNING id`,

  /** The earliest pending job that is not waiting for a running job of its key (of one budget, of none, of any). */
  nextPendingDue: firstDue(''),
  nextPendingDueOf: firstDue('AND j.rate_key = $1'),
  nextPendingDueUnpaced: firstDue('AND j.rate_key IS NULL'),
  nextLeaseExpiry: `SELECT MIN(lease_until) AS lease_until FROM jobs WHERE state = 'running'`,

  getJob: `SELECT * FROM jobs WHERE id = $1`,
  /** The number the insert trigger gave a delivery (SQLite builds the inserted job rather than reading it). */
  deliveryNo: `SELECT delivery_no FROM jobs WHERE id = $1`,
  jobKey: `SELECT coalesce_key FROM jobs WHERE id = $1`,
  getAttempts: `SELECT * FROM attempts WHERE job_id = $1 ORDER BY id`,
  getEvent: `SELECT * FROM inbound_events WHERE id = $1`,
  lastSucceeded: `SELECT * FROM jobs WHERE state = 'succeeded' AND coalesce_key = $2 AND kind = $1
    ORDER BY updated_at DESC, id DESC LIMIT 1`,

  /** The pacing log (rate-log.ts has the arithmetic): forget calls older than the window, read the rest. */
  ensureRateLimit: `INSERT INTO rate_limits (key, blocked_until) VALUES ($1, NULL) ON CONFLICT (key) DO NOTHING`,
  getRateLimit: `SELECT blocked_until FROM rate_limits WHERE key = $1`,
  blockRate: `INSERT INTO rate_limits (key, blocked_until) VALUES ($1, $2)
    ON CONFLICT (key) DO UPDATE SET blocked_until = CASE
      WHEN rate_limits.blocked_until IS NULL OR rate_limits.blocked_until < excluded.blocked_until THEN excluded.blocked_until
      ELSE rate_limits.blocked_until END`,
  pruneSlots: `DELETE FROM rate_slots WHERE key = $1 AND at <= $2`,
  slotTimes: `SELECT at FROM rate_slots WHERE key = $1 AND at > $2 ORDER BY at`,
  insertSlot: `INSERT INTO rate_slots (key, job_id, at) VALUES ($1, $2, $3)`,
  /**
   * A call's slot counts from when its answer came back: the request reached the upstream before that.
   * Only this run's slot (the job's newest): the slots of its earlier runs are calls that were made.
   */
  settleSlot: `UPDATE rate_slots SET at = $2 WHERE id = ${THIS_RUNS_SLOT}`,
  /** No call was made by this run: its slot is free again; an earlier run's call still counts. */
  refundSlot: `DELETE FROM rate_slots WHERE id = ${THIS_RUNS_SLOT}`,

  /** The newest source state of a meeting that a job was made from (meeting-order.ts). */
  getMeetingVersion: `SELECT source_version, event_id, job_id FROM meeting_versions WHERE coalesce_key = $1`,
  putMeetingVersion: `INSERT INTO meeting_versions (coalesce_key, source_version, event_id, job_id) VALUES ($1, $2, $3, $4)
    ON CONFLICT (coalesce_key) DO UPDATE SET source_version = excluded.source_version, event_id = excluded.event_id, job_id = excluded.job_id`,

  ping: `SELECT 1 AS ok`,
} as const;
