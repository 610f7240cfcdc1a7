import type { MeetingActivity } from './admin-read-types.ts';
import { idsTable } from './job-search-sql.ts';
import { NUMBERED_KINDS } from './job-types.ts';
import type { Dialect } from './migrations.ts';
import { num, numOrNull, type Row } from './row-mappers.ts';

/**
 * What the meeting search (src/admin/meeting-search.ts) reads once it has found events and
 * deliveries: which meeting each event is a state of, and what each meeting left behind. Both go
 * through the map-event jobs of one serial key (jobs_serial_event) and then by event id (jobs_event,
 * match_records_meeting), so their cost follows the meetings asked for, never the tables.
 */

const DELIVERY = NUMBERED_KINDS.map((kind) => `'${kind}'`).join(', ');

/** The serial key of each event's map-event job (reprocessing keeps the key, so any one names it). */
export const meetingKeysQuery = (dialect: Dialect, eventIds: readonly number[]) => ({
  sql: `SELECT c.value AS event_id, (SELECT mk.serial_key FROM jobs mk WHERE mk.event_id = c.value AND mk.kind = 'map-event' AND mk.serial_key IS NOT NULL LIMIT 1) AS meeting_key
    FROM ${idsTable(dialect, '$1')} c`,
  params: [JSON.stringify(eventIds)],
});

export const meetingKeysFromRows = (rows: Row[]): Map<number, string> =>
  new Map(rows.flatMap((row) => (row.meeting_key === null || row.meeting_key === undefined ? [] : [[num(row.event_id), String(row.meeting_key)]])));

/** The events of the key ($1): their map-event jobs. */
const EVENTS_OF_KEY = `SELECT mk.event_id FROM jobs mk WHERE mk.serial_key = $1 AND mk.kind = 'map-event'`;

/**
 * One meeting key's counts and last activity, each an index range of that meeting's own rows. The
 * unary + keeps SQLite (no statistics) off the kind index, which would read every delivery: the
 * meeting's events lead, through jobs_event.
 */
export const meetingActivitySql = (dialect: Dialect): string => {
  const kind = dialect === 'sqlite' ? '+d.kind' : 'd.kind';
  return `SELECT
    (SELECT COUNT(DISTINCT mk.event_id) FROM jobs mk WHERE mk.serial_key = $1 AND mk.kind = 'map-event') AS events,
    (SELECT COUNT(*) FROM jobs d WHERE d.event_id IN (${EVENTS_OF_KEY}) AND ${kind} IN (${DELIVERY})) AS deliveries,
    (SELECT COUNT(*) FROM match_records m WHERE m.meeting_key = $1) AS matches,
    (SELECT e.id FROM inbound_events e WHERE e.id IN (${EVENTS_OF_KEY}) ORDER BY e.received_at DESC, e.id DESC LIMIT 1) AS newest_event_id,
    (SELECT MAX(e.received_at) FROM inbound_events e WHERE e.id IN (${EVENTS_OF_KEY})) AS last_event_at,
    (SELECT MAX(d.updated_at) FROM jobs d WHERE d.event_id IN (${EVENTS_OF_KEY}) AND ${kind} IN (${DELIVERY})) AS last_delivery_at,
    (SELECT MAX(m.created_at) FROM match_records m WHERE m.meeting_key = $1) AS last_match_at`;
};

export function meetingActivityFromRow(meetingKey: string, row: Row | undefined): MeetingActivity | undefined {
  if (row === undefined || num(row.events) === 0) return undefined;
  const times = [row.last_event_at, row.last_delivery_at, row.last_match_at].map(numOrNull).filter((at): at is number => at !== null);
  return {
    meetingKey,
    events: num(row.events),
    deliveries: num(row.deliveries),
    matches: num(row.matches),
    newestEventId: numOrNull(row.newest_event_id),
    lastActivityAt: times.length === 0 ? null : Math.max(...times),
  };
}
