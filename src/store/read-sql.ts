import { EVENT_INDEX, JOB_INDEX, type SearchPlan } from './job-search-sql.ts';
import type { Dialect } from './migrations.ts';
import { type Listed, listingSource } from './search-source.ts';
import { limitParam } from './sql.ts';
import { boundKey } from './store-values.ts';
import type { EventListQuery, JobFilter, JobListQuery, PayloadSearch } from './types.ts';

/**
 * Read models over the store (admin API, metrics), shared by both engines. Listings are built from
 * their filters with `$n` placeholders (SQLite rewrites them, see sql.ts); the dialects differ only
 * in the substring, JSON and case functions (searchCondition). Keyset pagination on (time, id) keeps a page's cost flat
 * however deep the operator pages, and a row inserted meanwhile never shifts a page.
 */

export type Params = Array<string | number | null>;
export interface BuiltQuery {
  sql: string;
  params: Params;
}

export const READ_SQL = {
  getMessage: `SELECT * FROM inbound_messages WHERE id = $1`,
  /** Only a pending job may be cancelled: the state check and the change are one statement. */
  cancelJob: `UPDATE jobs SET state = 'cancelled', last_error = $2, updated_at = $3 WHERE id = $1 AND state = 'pending' RETURNING *`,
} as const;

export function placeholders(params: Params) {
  return (value: string | number): string => {
    params.push(value);
    return `$${params.length}`;
  };
}

export const inList = (column: string, values: readonly (string | number)[], add: (value: string | number) => string): string =>
  values.length === 0 ? '1 = 0' : `${column} IN (${values.map(add).join(', ')})`;

function jobConditions(filter: JobFilter, dialect: Dialect, params: Params): string[] {
  const add = placeholders(params);
  const where: string[] = [];
  // Without a state filter the newest-first walk of jobs_created is cheapest (most jobs are deliveries);
  // SQLite has no statistics to know that, and unary + keeps it off the kind index (PostgreSQL plans by its statistics).
  const kindColumn = dialect === 'sqlite' && filter.states === undefined ? '+j.kind' : 'j.kind';
  if (filter.kinds !== undefined) where.push(inList(kindColumn, filter.kinds, add));
  if (filter.states !== undefined) where.push(inList('j.state', filter.states, add));
  if (filter.createdSince !== undefined) where.push(`j.created_at >= CAST(${add(filter.createdSince)} AS BIGINT)`);
  if (filter.updatedSince !== undefined) where.push(`j.updated_at >= CAST(${add(filter.updatedSince)} AS BIGINT)`);
  if (filter.createdUntil !== undefined) where.push(`j.created_at < CAST(${add(filter.createdUntil)} AS BIGINT)`);
  if (filter.coalesceKey !== undefined) where.push(`j.coalesce_key = ${add(filter.coalesceKey)}`);
  if (filter.eventId !== undefined) where.push(`j.event_id = CAST(${add(filter.eventId)} AS BIGINT)`);
  if (filter.replayOf !== undefined) where.push(`j.replay_of = CAST(${add(filter.replayOf)} AS BIGINT)`);
  if (filter.payloadContains !== undefined) {
    // instr/strpos compare bytes exactly; LIKE would be case-insensitive on SQLite and treat _ and % as wildcards.
    const find = dialect === 'sqlite' ? 'instr' : 'strpos';
    where.push(`${find}(j.payload, CAST(${add(filter.payloadContains)} AS TEXT)) > 0`);
  }
  if (filter.payloadSearch !== undefined) where.push(searchCondition(filter.payloadSearch, dialect, add));
  if (filter.notReplayed) where.push('NOT EXISTS (SELECT 1 FROM jobs r WHERE r.replay_of = j.id)');
  if (filter.meetingKey !== undefined) where.push(`j.event_id IN (${eventsOfMeeting(add(boundKey(filter.meetingKey)))})`);
  if (filter.meetingId !== undefined) where.push(`j.event_id IN (${eventsOfMeetingId(add(filter.meetingId))})`);
  // The match record that made the job: its event's newest at or before the job (one transaction writes both).
  if (filter.matchOutcome !== undefined) {
    where.push(
      `(SELECT m.outcome FROM match_records m WHERE m.event_id = j.event_id AND m.created_at <= j.created_at ORDER BY m.id DESC LIMIT 1) = CAST(${add(filter.matchOutcome)} AS TEXT)`,
    );
  }
  return where;
}

/** The events whose map-event jobs carry this serial key (jobs_serial_event): the states of one meeting. */
const eventsOfMeeting = (key: string): string => `SELECT mk.event_id FROM jobs mk WHERE mk.serial_key = ${key} AND mk.kind = 'map-event'`;

/** The events of every source record of one meeting (meeting_sources): the states of all its sources. */
const eventsOfMeetingId = (id: string): string =>
  `SELECT mk.event_id FROM jobs mk WHERE mk.kind = 'map-event' AND mk.serial_key IN (SELECT ms.record_key FROM meeting_sources ms WHERE ms.meeting_id = CAST(${id} AS BIGINT))`;

const ASCII_UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const JSON_KEY = /^\w+$/;

function jsonPath(path: readonly string[], dialect: Dialect): string {
  if (path.length === 0 || !path.every((key) => JSON_KEY.test(key))) throw new Error(`not a searchable JSON path: ${path.join('.')}`);
  return dialect === 'sqlite' ? `$.${path.join('.')}` : `{${path.join(',')}}`;
}

/**
 * The search folds ASCII letters only, on both engines: SQLite's lower() knows no other letters
 * (without ICU), and PostgreSQL's would fold more, so PostgreSQL folds with translate() instead.
 * The paths are parameters too: SQLite's json_extract takes a `$.a.b` path, PostgreSQL's #>> a
 * text array, applied to the payload parsed once per row (the inner SELECT).
 */
function searchCondition(search: PayloadSearch, dialect: Dialect, add: (value: string | number) => string): string {
  if (search.fields.length === 0) return '1 = 0';
  const text = add(search.text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase()));
  const value = (path: readonly string[]) =>
    dialect === 'sqlite' ? `json_extract(j.payload, ${add(jsonPath(path, dialect))})` : `d.p #>> CAST(${add(jsonPath(path, dialect))} AS TEXT[])`;
  const fields = search.fields.map((paths) => (paths.length === 1 ? value(paths[0]!) : `concat_ws(':', ${paths.map(value).join(', ')})`));
  if (dialect === 'sqlite') return `instr(lower(concat_ws(char(10), ${fields.join(', ')})), CAST(${text} AS TEXT)) > 0`;
  const folded = `translate(concat_ws(chr(10), ${fields.join(', ')}), '${ASCII_UPPER}', '${ASCII_UPPER.toLowerCase()}')`;
  return `(SELECT strpos(${folded}, CAST(${text} AS TEXT)) FROM (SELECT bridge_search_json(j.payload) AS p) AS d) > 0`;
}

const whereClause = (conditions: string[]): string => (conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`);

const JOBS: Listed = { table: 'jobs', alias: 'j', time: 'created_at', index: JOB_INDEX, documentTime: 'created_at' };
const EVENTS: Listed = { table: 'inbound_events', alias: 'e', time: 'received_at', index: EVENT_INDEX, documentTime: 'received_at' };

export function jobListQuery(query: JobListQuery, dialect: Dialect, plan?: SearchPlan): BuiltQuery {
  const params: Params = [];
  const conditions = jobConditions(query, dialect, params);
  const add = placeholders(params);
  const newest = (query.order ?? 'newest') === 'newest';
  const source = listingSource(JOBS, query.textSearch, dialect, plan, { ...(query.after ? { after: query.after } : {}), newest }, add, conditions);
  const direction = newest ? 'DESC' : 'ASC';
  const sql = `SELECT j.* FROM ${source.from}${whereClause(conditions)} ORDER BY ${source.time} ${direction}, ${source.id} ${direction} ${limitParam(add(query.limit))}`;
  return { sql, params };
}

export function jobCountQuery(filter: JobFilter, dialect: Dialect, plan?: SearchPlan): BuiltQuery {
  const params: Params = [];
  const conditions = jobConditions(filter, dialect, params);
  const source = listingSource(JOBS, filter.textSearch, dialect, plan, { newest: true }, placeholders(params), conditions);
  return { sql: `SELECT COUNT(*) AS n FROM ${source.from}${whereClause(conditions)}`, params };
}

export function eventListQuery(query: EventListQuery, dialect: Dialect, plan?: SearchPlan): BuiltQuery {
  const params: Params = [];
  const add = placeholders(params);
  const where: string[] = [];
  if (query.sources !== undefined) where.push(inList('e.source', query.sources, add));
  if (query.states !== undefined) where.push(inList('e.state', query.states, add));
  if (query.receivedSince !== undefined) where.push(`e.received_at >= CAST(${add(query.receivedSince)} AS BIGINT)`);
  if (query.receivedUntil !== undefined) where.push(`e.received_at < CAST(${add(query.receivedUntil)} AS BIGINT)`);
  if (query.meetingKey !== undefined) where.push(`e.id IN (${eventsOfMeeting(add(boundKey(query.meetingKey)))})`);
  if (query.meetingId !== undefined) where.push(`e.id IN (${eventsOfMeetingId(add(query.meetingId))})`);
  if (query.matchOutcome !== undefined) {
    where.push(`(SELECT m.outcome FROM match_records m WHERE m.event_id = e.id ORDER BY m.id DESC LIMIT 1) = CAST(${add(query.matchOutcome)} AS TEXT)`);
  }
  const source = listingSource(EVENTS, query.textSearch, dialect, plan, { ...(query.after ? { after: query.after } : {}), newest: true }, add, where);
  const sql = `SELECT e.* FROM ${source.from}${whereClause(where)} ORDER BY ${source.time} DESC, ${source.id} DESC ${limitParam(add(query.limit))}`;
  return { sql, params };
}
