import { storableText } from '../core/storable.ts';
import type { MeetingSource, MeetingSourceState, ResolvedMeeting, StoredMeeting } from './meeting-identity-types.ts';
import { isOlderState } from './meeting-order.ts';
import { num, numOrNull, type Row, textOrNull } from './row-mappers.ts';
import { boundKey } from './store-values.ts';

/**
 * Meeting identity as a sequence of statements, written once for both engines: each step yields
 * one statement (`$n` placeholders) and receives its rows. SQLite drives it synchronously inside
 * one write batch, PostgreSQL inside one transaction under an advisory lock (meeting-identities.ts).
 */

export interface Statement {
  sql: string;
  params: unknown[];
}
export type Steps<T> = Generator<Statement, T, Row[]>;

const statement = (sql: string, params: unknown[] = []): Statement => ({ sql, params });
/** `$from, $from+1, …` for an IN list. */
const list = (values: readonly unknown[], from: number) => values.map((_, index) => `$${from + index}`).join(', ');
// Links and facts come from upstream text (a title, a link in a description): made storable on both engines.
const bounded = (links: readonly string[]) => [...new Set(links.map((link) => boundKey(storableText(link))))];
const text = (value: string | undefined, max: number) => (value === undefined ? null : storableText(value.slice(0, max)));

export function* resolveSteps(state: MeetingSourceState, now: number): Steps<ResolvedMeeting> {
  const recordKey = boundKey(state.recordKey);
  const exact = bounded(state.exactLinks);
  const timed = bounded(state.timedLinks);
  const [own] = yield statement(`SELECT meeting_id, event_id, source_version FROM meeting_sources WHERE record_key = $1`, [recordKey]);
  // An older state than the one recorded (a retried mapping finishing late): it names the meeting, it changes nothing.
  if (own !== undefined && isOlderState(state.version, { sourceVersion: numOrNull(own.source_version), eventId: num(own.event_id) })) {
    return { ...(yield* factsSteps(num(own.meeting_id))), stale: true };
  }

  const found = new Set<number>(own === undefined ? [] : [num(own.meeting_id)]);
  if (exact.length > 0) {
    for (const row of yield statement(`SELECT DISTINCT meeting_id FROM meeting_links WHERE link IN (${list(exact, 1)})`, exact)) found.add(num(row.meeting_id));
  }
  if (state.startAt !== undefined) {
    for (const link of timed) {
      // Another system's record near this start; a cancelled one joins nothing, and two meetings are a tie that joins nothing.
      const rows = yield statement(
        `SELECT DISTINCT l.meeting_id FROM meeting_links l JOIN meeting_sources s ON s.record_key = l.record_key
         WHERE l.link = $1 AND s.source <> $2 AND s.cancelled = 0 AND s.start_at >= CAST($3 AS BIGINT) AND s.start_at <= CAST($4 AS BIGINT)`,
        [link, state.source, state.startAt - state.toleranceMs, state.startAt + state.toleranceMs],
      );
      if (rows.length === 1) found.add(num(rows[0]!.meeting_id));
    }
  }

  let meetingId: number;
  if (found.size === 0) {
    const [created] = yield statement(`INSERT INTO meetings (created_at) VALUES (CAST($1 AS BIGINT)) RETURNING id`, [now]);
    meetingId = num(created!.id);
  } else {
    meetingId = Math.min(...found);
    const others = [...found].filter((id) => id !== meetingId);
    if (others.length > 0) yield* joinSteps(meetingId, others);
  }

  yield statement(
    `INSERT INTO meeting_sources (record_key, meeting_id, source, start_at, host, title, cancelled, imported_id, event_id, source_version, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)
     ON CONFLICT (record_key) DO UPDATE SET meeting_id = excluded.meeting_id, source = excluded.source, start_at = excluded.start_at,
       host = excluded.host, title = excluded.title, cancelled = excluded.cancelled,
       imported_id = COALESCE(excluded.imported_id, meeting_sources.imported_id),
       event_id = excluded.event_id, source_version = excluded.source_version, updated_at = excluded.updated_at`,
    [
      recordKey,
      meetingId,
      state.source,
      state.startAt ?? null,
      text(state.host, 320),
      text(state.title, 1000),
      state.cancelled ? 1 : 0,
      state.importedId === undefined ? null : storableText(state.importedId),
      state.version.eventId,
      state.version.sourceVersion,
      now,
    ],
  );
  // The record's links are its newest state's: a moved meeting no longer holds its old start's place.
  yield statement(`DELETE FROM meeting_links WHERE record_key = $1`, [recordKey]);
  const links = [...new Set([...exact, ...timed])];
  if (links.length > 0) {
    const values = links.map((_, index) => `($${index + 3}, $1, $2)`).join(', ');
    yield statement(`INSERT INTO meeting_links (link, record_key, meeting_id) VALUES ${values}`, [recordKey, meetingId, ...links]);
  }
  return { ...(yield* factsSteps(meetingId)), stale: false };
}

/** Joins `others` into `meetingId`: their sources, links and match records move; their ids keep naming it. */
function* joinSteps(meetingId: number, others: number[]): Steps<void> {
  const ids = list(others, 2);
  yield statement(`UPDATE meeting_sources SET meeting_id = $1 WHERE meeting_id IN (${ids})`, [meetingId, ...others]);
  yield statement(`UPDATE meeting_links SET meeting_id = $1 WHERE meeting_id IN (${ids})`, [meetingId, ...others]);
  yield statement(`UPDATE match_records SET meeting_id = $1 WHERE meeting_id IN (${ids})`, [meetingId, ...others]);
  yield statement(`UPDATE meetings SET merged_into = $1 WHERE id IN (${ids}) OR merged_into IN (${ids})`, [meetingId, ...others]);
}

function* factsSteps(meetingId: number): Steps<Omit<ResolvedMeeting, 'stale'>> {
  const absorbed = yield statement(`SELECT id FROM meetings WHERE merged_into = $1 ORDER BY id`, [meetingId]);
  const imported = yield statement(
    `SELECT imported_id FROM meeting_sources WHERE meeting_id = $1 AND imported_id IS NOT NULL ORDER BY created_at, record_key`,
    [meetingId],
  );
  return { meetingId, absorbedIds: absorbed.map((row) => num(row.id)), importedIds: imported.map((row) => String(row.imported_id)) };
}

const sourceFromRow = (row: Row): MeetingSource => ({
  recordKey: String(row.record_key),
  meetingId: num(row.meeting_id),
  source: String(row.source),
  startAt: numOrNull(row.start_at),
  host: textOrNull(row.host),
  title: textOrNull(row.title),
  cancelled: num(row.cancelled) === 1,
  importedId: textOrNull(row.imported_id),
  eventId: num(row.event_id),
  createdAt: num(row.created_at),
  updatedAt: num(row.updated_at),
});

/** A meeting by any id it has had, with its sources, oldest first. */
export function* meetingSteps(id: number): Steps<StoredMeeting | undefined> {
  const [asked] = yield statement(`SELECT id, created_at, merged_into FROM meetings WHERE id = $1`, [id]);
  if (asked === undefined) return undefined;
  const [meeting] = asked.merged_into == null ? [asked] : yield statement(`SELECT id, created_at FROM meetings WHERE id = $1`, [num(asked.merged_into)]);
  if (meeting === undefined) return undefined;
  const meetingId = num(meeting.id);
  const sources = yield statement(`SELECT * FROM meeting_sources WHERE meeting_id = $1 ORDER BY created_at, record_key`, [meetingId]);
  const absorbed = yield statement(`SELECT id FROM meetings WHERE merged_into = $1 ORDER BY id`, [meetingId]);
  return { id: meetingId, createdAt: num(meeting.created_at), absorbedIds: absorbed.map((row) => num(row.id)), sources: sources.map(sourceFromRow) };
}

export function* meetingOfRecordSteps(recordKey: string): Steps<number | undefined> {
  const [row] = yield statement(`SELECT meeting_id FROM meeting_sources WHERE record_key = $1`, [boundKey(recordKey)]);
  return row === undefined ? undefined : num(row.meeting_id);
}
