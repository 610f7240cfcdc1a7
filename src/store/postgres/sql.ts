import { expiredOfBudget, pendingOfBudget, SQL, THIS_RUNS_SLOT } from '../sql.ts';

/** PostgreSQL-only statements: set-based bulk writes (unnest), row locks and advisory locks. */

// Advisory lock namespaces (the first int of the two-int form), so key locks never collide with the others.
const LOCK_KEY = 731001;
const LOCK_CLAIM = 731002;
const LOCK_MIGRATE = 731003;
const LOCK_MEETINGS = 731004;

/** Now on the database's clock, in epoch ms, as the pacer reads it. */
const DB_NOW = `CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)`;

/**
 * Every candidate list of a claim in one statement, so all are read from one snapshot. Read by
 * separate statements, a claim could see a mapping still running in the first (its newer sibling
 * held back by the serial key) and, in the next, the remap that mapping enqueued as it committed
 * meanwhile: the remap would be taken before the newer mapping that would have superseded it.
 * The inner selects pick ids; the outer one locks those rows and, as PostgreSQL re-reads a row
 * once its lock is taken, keeps only those still claimable (an enqueue may have superseded a
 * pending job meanwhile).
 */
function lockCandidates(lists: readonly string[]): string {
  return `SELECT j.id, j.coalesce_key, j.serial_key, j.rate_key, j.priority, j.run_at FROM jobs j
    WHERE j.id = ANY(${lists.map((list, index) => `ARRAY(SELECT c${index}.id FROM (${list}) AS c${index})`).join(' || ')})
      AND (j.state = 'pending' OR (j.state = 'running' AND j.lease_until <= $1))
    FOR UPDATE OF j SKIP LOCKED`;
}

const pacedStatements = new Map<number, string>();

/**
 * A paced claim's candidates: the unpaced ones ($1 now, $2 their limit), then each budget's
 * expired and pending ones (budget i: key $(3+2i), limit $(4+2i)).
 */
export function claimCandidatesPaced(budgets: number): string {
  let statement = pacedStatements.get(budgets);
  if (statement === undefined) {
    const lists: string[] = [SQL.claimExpiredUnpaced, SQL.claimPendingUnpaced];
    for (let index = 0; index < budgets; index += 1) {
      const [key, limit] = [`$${3 + 2 * index}`, `$${4 + 2 * index}`];
      lists.push(expiredOfBudget(key, limit), pendingOfBudget(key, limit));
    }
    statement = lockCandidates(lists);
    pacedStatements.set(budgets, statement);
  }
  return statement;
}

export const PG = {
  /** One lock per coalescing key, taken in the order given (callers sort) to avoid deadlocks. */
  lockKeys: `SELECT pg_advisory_xact_lock(${LOCK_KEY}, hashtext(k)) FROM unnest(CAST($1 AS TEXT[])) AS k`,
  /**
   * Claims are serialised per schema for the few milliseconds they take: SKIP LOCKED alone cannot
   * stop two instances from each claiming a different job of one key from their own snapshots.
   */
  lockClaim: `SELECT pg_advisory_xact_lock(${LOCK_CLAIM}, hashtext(current_schema()))`,
  lockMigrate: `SELECT pg_advisory_xact_lock(${LOCK_MIGRATE}, hashtext(current_schema()))`,
  /** Meeting identity: one resolution at a time per schema, so two sources of one meeting never make two meetings. */
  lockMeetings: `SELECT pg_advisory_xact_lock(${LOCK_MEETINGS}, hashtext(current_schema()))`,

  /** A claim naming no budgets (tools and tests): expired and pending candidates alike ($1 now, $2 limit). */
  claimCandidatesAll: lockCandidates([SQL.claimExpired, SQL.claimPending]),
  /**
   * The pacer reads the database's clock, not each instance's: instances whose clocks disagree by
   * a second would otherwise each see a different window and together send more than the limit.
   */
  clock: `SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT) AS now`,
  /**
   * A budget's window in one round trip: the database's clock, the calls in (now - W, now], and
   * the block; calls older than the window are forgotten in passing ($1 key, $2 window in ms).
   */
  rateWindow: `WITH c AS (SELECT ${DB_NOW} AS now),
    p AS (DELETE FROM rate_slots WHERE key = $1 AND at <= (SELECT now FROM c) - CAST($2 AS BIGINT))
    SELECT c.now, (SELECT blocked_until FROM rate_limits WHERE key = $1) AS blocked_until,
      ARRAY(SELECT s.at FROM rate_slots s WHERE s.key = $1 AND s.at > c.now - CAST($2 AS BIGINT) ORDER BY s.at) AS times
    FROM c`,
  insertSlots: `INSERT INTO rate_slots (key, job_id, at) SELECT CAST($1 AS TEXT), j, CAST($3 AS BIGINT) FROM unnest(CAST($2 AS BIGINT[])) AS j`,
  settleSlot: `UPDATE rate_slots SET at = ${DB_NOW} WHERE id = ${THIS_RUNS_SLOT}`,
  finish: `${SQL.finish} RETURNING coalesce_key`,
  markClaimed: `UPDATE jobs SET state = 'running', lease_owner = $2, lease_until = $3, updated_at = $4
    WHERE id = ANY(CAST($1 AS BIGINT[])) RETURNING *`,

  insertEvents: `INSERT INTO inbound_events (message_id, source, sender_id, dedupe_key, parsed_payload, received_at, state)
    SELECT CAST($1 AS BIGINT), CAST($2 AS TEXT), CAST($3 AS TEXT), e.key, e.payload, CAST($6 AS BIGINT), 'received'
    FROM unnest(CAST($4 AS TEXT[]), CAST($5 AS TEXT[])) WITH ORDINALITY AS e(key, payload, n) ORDER BY e.n
    ON CONFLICT (dedupe_key) DO NOTHING RETURNING id, dedupe_key`,

  nextJobIds: `SELECT nextval(pg_get_serial_sequence('jobs', 'id')) AS id FROM generate_series(1, $1)`,
  supersedePending: `UPDATE jobs j SET state = 'superseded', superseded_by = v.id, updated_at = $3
    FROM unnest(CAST($1 AS TEXT[]), CAST($2 AS BIGINT[])) AS v(key, id)
    WHERE j.coalesce_key = v.key AND j.state = 'pending'`,
  insertJobs: `INSERT INTO jobs (id, kind, payload, coalesce_key, state, attempts, run_at, created_at, updated_at, event_id, superseded_by, replay_of,
      rate_key, priority, serial_key, source_version, last_error)
    SELECT t.id, t.kind, t.payload, t.key, t.state, 0, t.run_at, CAST($10 AS BIGINT), CAST($10 AS BIGINT), t.event_id, t.superseded_by, t.replay_of,
      t.rate_key, t.priority, t.serial_key, t.source_version, t.last_error
    FROM unnest(CAST($1 AS BIGINT[]), CAST($2 AS TEXT[]), CAST($3 AS TEXT[]), CAST($4 AS TEXT[]), CAST($5 AS TEXT[]),
      CAST($6 AS BIGINT[]), CAST($7 AS BIGINT[]), CAST($8 AS BIGINT[]), CAST($9 AS BIGINT[]),
      CAST($11 AS TEXT[]), CAST($12 AS INTEGER[]), CAST($13 AS TEXT[]), CAST($14 AS BIGINT[]), CAST($15 AS TEXT[]))
      AS t(id, kind, payload, key, state, run_at, event_id, superseded_by, replay_of, rate_key, priority, serial_key, source_version, last_error)
    RETURNING *`,
  meetingVersions: `SELECT coalesce_key, source_version, event_id, job_id FROM meeting_versions WHERE coalesce_key = ANY(CAST($1 AS TEXT[]))`,
  putMeetingVersions: `INSERT INTO meeting_versions (coalesce_key, source_version, event_id, job_id)
    SELECT * FROM unnest(CAST($1 AS TEXT[]), CAST($2 AS BIGINT[]), CAST($3 AS BIGINT[]), CAST($4 AS BIGINT[]))
    ON CONFLICT (coalesce_key) DO UPDATE SET source_version = excluded.source_version, event_id = excluded.event_id, job_id = excluded.job_id`,

  runningKeysOf: `SELECT DISTINCT coalesce_key FROM jobs WHERE state = 'running' AND lease_owner = $1 AND coalesce_key IS NOT NULL`,
  extendLeases: `UPDATE jobs SET lease_until = $3, updated_at = $4 WHERE id = ANY(CAST($1 AS BIGINT[])) AND state = 'running' AND lease_owner = $2`,

  notify: `SELECT pg_notify($1, $2)`,

  /**
   * A final outcome (succeeded, dead, skipped, cancelled) with nothing else to write but its
   * attempt, in one statement: one round trip instead of BEGIN, update, attempt, NOTIFY, COMMIT.
   * It needs no key lock: the job leaves the running state and puts nothing back in the queue.
   * $1…$8 as SQL.finish; $9 whether an attempt is recorded, $10…$15 the attempt ($2…$7 of
   * SQL.insertAttempt); $16, $17 the NOTIFY channel and payload, sent when the job had a key; $18 the
   * call slot's fate (FinishJob.rateSlot: settle, refund, or null for a job that holds none)
   * (its next job may now run, see finishWakes); `notified` refers to `n` so PostgreSQL runs it (a
   * CTE that only SELECTs is skipped when unreferenced). Returns no row when the lease was lost.
   */
  finishFinal: `WITH f AS (${SQL.finish} RETURNING id, coalesce_key),
    s AS (UPDATE rate_slots SET at = ${DB_NOW} WHERE id = ${THIS_RUNS_SLOT} AND CAST($18 AS TEXT) = 'settle' AND EXISTS (SELECT 1 FROM f)),
    d AS (DELETE FROM rate_slots WHERE id = ${THIS_RUNS_SLOT} AND CAST($18 AS TEXT) = 'refund' AND EXISTS (SELECT 1 FROM f)),
    a AS (INSERT INTO attempts (job_id, started_at, duration_ms, status, error_class, response_excerpt, upstream_request_id)
      SELECT f.id, CAST($10 AS BIGINT), CAST($11 AS INTEGER), CAST($12 AS INTEGER), CAST($13 AS TEXT), CAST($14 AS TEXT), CAST($15 AS TEXT)
      FROM f WHERE CAST($9 AS BOOLEAN)),
    n AS (SELECT pg_notify(CAST($16 AS TEXT), CAST($17 AS TEXT)) FROM f WHERE f.coalesce_key IS NOT NULL)
    SELECT f.coalesce_key, (SELECT count(*) FROM n) AS notified FROM f`,
} as const;
