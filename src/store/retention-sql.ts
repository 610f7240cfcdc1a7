import type { StepRunner } from './meeting-identities.ts';
import type { Statement, Steps } from './meeting-identity-steps.ts';
import type { Dialect } from './migrations.ts';
import type { RemovedCounts, RetentionPass, RetentionStore, WalkBatch, WalkBatchResult } from './retention-types.ts';
import { num, type Row } from './row-mappers.ts';
import { limitParam } from './sql.ts';
import { fromJson, toJson } from './store-values.ts';
import type { JobState } from './types.ts';

/**
 * Retention's SQL, written once for both engines as steps (meeting-identity-steps.ts): SQLite runs a
 * batch inside one write batch of its group commit, PostgreSQL inside one short transaction.
 *
 * Each walk reads its table in id order from where it stopped (the primary key, never a scan) and
 * asks of each row, by index probes, whether anything kept still needs it. An event goes with
 * everything made from it or not at all: its map-event job is what ties it to its meeting's page
 * (the admin's meeting page and a pin find a meeting's events through it), its match records say
 * why its deliveries were sent. Kept whatever their age: jobs not ended (pending, running). Kept
 * until the age limit of kept state (RETENTION_MEETING_DAYS; a meeting at rest keeps none of it):
 * - per kind and coalescing key, the newest succeeded job: lastSucceeded reads it ("unchanged, not
 *   sent again", "imported once", the reconcile's last walk);
 * - per meeting and kind, the newest delivery row (delivered_meetings) and its job: read-back and
 *   reconcile read it;
 * - the job a meeting's newest state names (meeting_versions): a later, older state is stored
 *   superseded by it (meeting_versions names that job's event too, so it stays with the job);
 * - every job a kept job names (superseded_by, replay_of);
 * - per meeting key, the newest match record: re-matching maps its event again;
 * - the event a source record's newest state names (meeting_sources), shown on the meeting's page;
 * - events with any of these, with all that hangs on them; messages with an event left.
 * A kept match record may name a removed map-event job (map_job_id): nothing reads it. What goes at
 * the age limit takes its meeting_versions row, and its source record (forgetSources) with it.
 */

const TERMINAL: readonly JobState[] = ['succeeded', 'dead', 'cancelled', 'skipped', 'superseded'];

/**
 * Job `a` may go at the cutoff (`before`, a placeholder): ended before it, and nothing above keeps
 * it, or it ended before the age limit of kept state (`rest`): a meeting at rest keeps nothing.
 */
const jobGoes = (a: string, before = '$3', rest = '$4') => `(${a}.state IN (${TERMINAL.map((state) => `'${state}'`).join(', ')})
  AND ${a}.created_at < CAST(${before} AS BIGINT) AND ${a}.updated_at < CAST(${before} AS BIGINT)
  AND (${a}.updated_at < CAST(${rest} AS BIGINT) OR (
  NOT (${a}.state = 'succeeded' AND ${a}.coalesce_key IS NOT NULL AND NOT EXISTS (SELECT 1 FROM jobs ns
    WHERE ns.state = 'succeeded' AND ns.coalesce_key = ${a}.coalesce_key AND ns.kind = ${a}.kind
      AND (ns.updated_at > ${a}.updated_at OR (ns.updated_at = ${a}.updated_at AND ns.id > ${a}.id))))
  AND NOT EXISTS (SELECT 1 FROM meeting_versions v WHERE v.job_id = ${a}.id)
  AND NOT EXISTS (SELECT 1 FROM delivered_meetings d WHERE d.job_id = ${a}.id AND NOT EXISTS (SELECT 1 FROM delivered_meetings nd
    WHERE nd.meeting_key = d.meeting_key AND nd.kind = d.kind AND nd.job_id > d.job_id)))))`;

/**
 * A walk's batch: rows after $1, at most $2 of them, each with when it was made and whether it may
 * go (cutoff $3, age limit of kept state $4). The batch is picked first, so PostgreSQL plans the questions for its few rows (an
 * index probe each) rather than for the whole table (it would hash every match record to answer them).
 */
const examine = (table: string, madeAt: string, goes: string) =>
  `SELECT t.id, t.${madeAt} AS made_at, CASE WHEN t.${madeAt} < CAST($3 AS BIGINT) AND ${goes} THEN 1 ELSE 0 END AS removable
   FROM (SELECT * FROM ${table} b WHERE b.id > CAST($1 AS BIGINT) ORDER BY b.id ${limitParam('$2')}) t ORDER BY t.id`;

const EXAMINE = {
  events: examine(
    'inbound_events',
    'received_at',
    // A re-match makes a new match record of an old event: the record's age counts, not the event's.
    `NOT EXISTS (SELECT 1 FROM jobs j WHERE j.event_id = t.id AND NOT ${jobGoes('j')})
     AND NOT EXISTS (SELECT 1 FROM match_records m WHERE m.event_id = t.id AND m.created_at >= CAST($4 AS BIGINT)
       AND NOT EXISTS (SELECT 1 FROM match_records nm WHERE nm.meeting_key = m.meeting_key AND nm.id > m.id))
     AND NOT EXISTS (SELECT 1 FROM meeting_sources s WHERE s.event_id = t.id AND s.updated_at >= CAST($4 AS BIGINT))`,
  ),
  // Jobs made from an event go with it (the events walk): here only the others.
  jobs: examine('jobs', 'created_at', `t.event_id IS NULL AND ${jobGoes('t')}`),
  messages: examine('inbound_messages', 'received_at', `NOT EXISTS (SELECT 1 FROM inbound_events e WHERE e.message_id = t.id)`),
} as const;

/** `column` among the ids of one parameter: a JSON array on SQLite, a BIGINT[] on PostgreSQL (one statement text for any count). */
const inIds = (dialect: Dialect, column: string, placeholder = '$1') =>
  dialect === 'sqlite' ? `${column} IN (SELECT value FROM json_each(${placeholder}))` : `${column} = ANY(CAST(${placeholder} AS BIGINT[]))`;
const idsParam = (dialect: Dialect, ids: Iterable<number>): unknown => (dialect === 'sqlite' ? JSON.stringify([...ids]) : [...ids]);
/** `column` among the texts of one parameter (as inIds). */
const inTexts = (dialect: Dialect, column: string, placeholder = '$1') =>
  dialect === 'sqlite' ? `${column} IN (SELECT value FROM json_each(${placeholder}))` : `${column} = ANY(CAST(${placeholder} AS TEXT[]))`;
const textsParam = (dialect: Dialect, texts: Iterable<string>): unknown => (dialect === 'sqlite' ? JSON.stringify([...texts]) : [...texts]);
const statement = (sql: string, params: unknown[]): Statement => ({ sql, params });

/** The rows read, up to the first one made after the cutoff: where the walk stands and which may go. */
function readBatch(rows: readonly Row[], batch: WalkBatch): { candidates: number[]; cursor: number; caughtUp: boolean } {
  const candidates: number[] = [];
  let cursor = batch.after;
  let caughtUp = rows.length < batch.limit;
  for (const row of rows) {
    // Ids follow the order rows were made in: the first young row ends this pass's walk.
    if (num(row.made_at) >= batch.before) {
      caughtUp = true;
      break;
    }
    cursor = num(row.id);
    if (num(row.removable) === 1) candidates.push(cursor);
  }
  return { candidates, cursor, caughtUp };
}

export function* walkSteps(dialect: Dialect, batch: WalkBatch): Steps<WalkBatchResult> {
  const params = [batch.after, batch.limit, batch.before];
  // PostgreSQL refuses a parameter its statement does not use: the messages walk asks nothing of kept state.
  const rows = yield statement(EXAMINE[batch.walk], batch.walk === 'messages' ? params : [...params, batch.restBefore]);
  const { candidates, cursor, caughtUp } = readBatch(rows, batch);
  if (candidates.length === 0) return { removed: {}, cursor, caughtUp };
  if (batch.walk === 'messages') {
    const gone = yield statement(`DELETE FROM inbound_messages WHERE ${inIds(dialect, 'id')} RETURNING id`, [idsParam(dialect, candidates)]);
    return { removed: { messages: gone.length }, cursor, caughtUp };
  }
  // A bundle goes whole: an event with its jobs, or (the jobs walk) one job.
  const bundles = new Map<number, number[]>(candidates.map((id) => [id, batch.walk === 'jobs' ? [id] : []]));
  if (batch.walk === 'events') {
    // Asked again, job by job: on PostgreSQL another transaction may have made a job of the event since.
    const jobs = yield statement(
      `SELECT j.id, j.event_id, CASE WHEN ${jobGoes('j', '$2', '$3')} THEN 1 ELSE 0 END AS goes FROM jobs j WHERE ${inIds(dialect, 'j.event_id')}`,
      [idsParam(dialect, candidates), batch.before, batch.restBefore],
    );
    for (const row of jobs) bundles.get(num(row.event_id))?.push(num(row.id));
    for (const row of jobs) if (num(row.goes) !== 1) bundles.delete(num(row.event_id));
  }
  const going = yield* keepNamed(dialect, bundles);
  if (going.size === 0) return { removed: {}, cursor, caughtUp };
  return { removed: yield* removeBundles(dialect, batch.walk, going), cursor, caughtUp };
}

/**
 * A job another job still names (as its successor, or as the original it replays) stays, with its
 * bundle, unless the one naming it goes in the same statement; each bundle kept keeps what its jobs
 * name in turn, until nothing changes.
 */
function* keepNamed(dialect: Dialect, bundles: Map<number, number[]>): Steps<Map<number, number[]>> {
  const bundleOf = new Map<number, number>();
  for (const [bundle, jobs] of bundles) for (const job of jobs) bundleOf.set(job, bundle);
  if (bundleOf.size === 0) return bundles;
  const ids = idsParam(dialect, bundleOf.keys());
  const naming = yield statement(
    `SELECT id, superseded_by AS target FROM jobs WHERE superseded_by IS NOT NULL AND ${inIds(dialect, 'superseded_by')}
     UNION ALL SELECT id, replay_of AS target FROM jobs WHERE replay_of IS NOT NULL AND ${inIds(dialect, 'replay_of')}`,
    [ids],
  );
  const going = new Map(bundles);
  const goes = (job: number) => going.has(bundleOf.get(job) ?? -1);
  for (let changed = true; changed;) {
    changed = false;
    for (const row of naming) {
      const target = num(row.target);
      if (goes(target) && !goes(num(row.id))) {
        going.delete(bundleOf.get(target)!);
        changed = true;
      }
    }
  }
  return going;
}

function* removeBundles(dialect: Dialect, walk: 'events' | 'jobs', going: Map<number, number[]>): Steps<Partial<RemovedCounts>> {
  const jobs = idsParam(dialect, [...going.values()].flat());
  const attempts = yield statement(`DELETE FROM attempts WHERE ${inIds(dialect, 'job_id')} RETURNING id`, [jobs]);
  const delivered = yield statement(`DELETE FROM delivered_meetings WHERE ${inIds(dialect, 'job_id')} RETURNING job_id`, [jobs]);
  // A meeting's newest state names its job only while the job is kept, and goes with it (a meeting at rest).
  const versions = yield statement(`DELETE FROM meeting_versions WHERE ${inIds(dialect, 'job_id')} RETURNING job_id`, [jobs]);
  const removedJobs = yield statement(`DELETE FROM jobs WHERE ${inIds(dialect, 'id')} RETURNING id`, [jobs]);
  const removed = { jobs: removedJobs.length, attempts: attempts.length, deliveredMeetings: delivered.length, meetingVersions: versions.length };
  if (walk === 'jobs') return removed;
  const events = idsParam(dialect, going.keys());
  const matches = yield statement(`DELETE FROM match_records WHERE ${inIds(dialect, 'event_id')} RETURNING id`, [events]);
  const rest = yield* forgetSources(dialect, events);
  const gone = yield statement(`DELETE FROM inbound_events WHERE ${inIds(dialect, 'id')} RETURNING id`, [events]);
  return { ...removed, ...rest, matchRecords: matches.length, events: gone.length };
}

/**
 * A source record whose newest state's event goes is at rest (untouched past the age limit): the
 * record, its links and, once it has no source left, its meeting (with the meetings joined into
 * it) are forgotten. Should the record come back, it is a new meeting to the bridge.
 */
function* forgetSources(dialect: Dialect, events: unknown): Steps<Pick<RemovedCounts, 'meetingSources' | 'meetings'>> {
  const sources = yield statement(`DELETE FROM meeting_sources WHERE ${inIds(dialect, 'event_id')} RETURNING record_key, meeting_id`, [events]);
  if (sources.length === 0) return { meetingSources: 0, meetings: 0 };
  yield statement(`DELETE FROM meeting_links WHERE ${inTexts(dialect, 'record_key')}`, [
    textsParam(
      dialect,
      sources.map((row) => String(row.record_key)),
    ),
  ]);
  const orphans = yield statement(
    `SELECT m.id FROM meetings m WHERE ${inIds(dialect, 'm.id')} AND NOT EXISTS (SELECT 1 FROM meeting_sources s WHERE s.meeting_id = m.id)`,
    [idsParam(dialect, new Set(sources.map((row) => num(row.meeting_id))))],
  );
  if (orphans.length === 0) return { meetingSources: sources.length, meetings: 0 };
  const ids = idsParam(
    dialect,
    orphans.map((row) => num(row.id)),
  );
  const meetings = yield statement(`DELETE FROM meetings WHERE ${inIds(dialect, 'id')} OR ${inIds(dialect, 'merged_into')} RETURNING id`, [ids]);
  return { meetingSources: sources.length, meetings: meetings.length };
}

/** Touches are read only within the re-match window (meetingsTouching): older ones go, oldest first. */
function* touchSteps(before: number, limit: number): Steps<number> {
  const gone = yield statement(
    `DELETE FROM match_touches WHERE (kind, value, meeting_key) IN (
       SELECT kind, value, meeting_key FROM match_touches WHERE at < CAST($1 AS BIGINT) ORDER BY at ${limitParam('$2')})
     RETURNING at`,
    [before, limit],
  );
  return gone.length;
}

/** Activity roll-ups (read-model-migration.ts) of buckets before the cutoff, oldest first, on their primary key. */
function* rollupSteps(before: number, limit: number): Steps<number> {
  const gone = yield statement(
    `DELETE FROM activity_counts WHERE (span, bucket, what, kind) IN (
       SELECT span, bucket, what, kind FROM activity_counts WHERE span IN (60000, 3600000) AND bucket < CAST($1 AS BIGINT) ORDER BY span, bucket ${limitParam('$2')})
     RETURNING bucket`,
    [before, limit],
  );
  return gone.length;
}

const PASS_ROW = 'last-pass';

/** RetentionStore over either engine: `run.write` is one transaction (SQLite: one non-durable write batch). */
export function createRetentionStore(dialect: Dialect, run: StepRunner): RetentionStore {
  return {
    pruneWalk: (batch) => run.write(() => walkSteps(dialect, batch)),
    pruneTouches: (before, limit) => run.write(() => touchSteps(before, limit)),
    pruneRollups: (before, limit) => run.write(() => rollupSteps(before, limit)),
    lastPass: () =>
      run.read(function* () {
        const [row] = yield statement(`SELECT state FROM retention_state WHERE name = $1`, [PASS_ROW]);
        return row === undefined ? undefined : (fromJson(row.state) as RetentionPass);
      }),
    savePass: (pass) =>
      run.write(function* () {
        yield statement(
          `INSERT INTO retention_state (name, passed_at, state) VALUES ($1, $2, $3)
           ON CONFLICT (name) DO UPDATE SET passed_at = excluded.passed_at, state = excluded.state`,
          [PASS_ROW, pass.at, toJson(pass)],
        );
      }),
  };
}
