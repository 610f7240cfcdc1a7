import { type MatchStore, type MeetingPin, type PinnedRecords, type StoredMatch, withColumns } from './match-types.ts';
import { numOrNull } from './row-mappers.ts';
import type { SqlRunner } from './sql-channel-store.ts';
import { boundKey, fromJson, toJson } from './store-values.ts';

type Row = Record<string, unknown>;

function toMatch(row: Row): StoredMatch {
  const columns = { outcome: String(row.outcome), rule: String(row.rule), summary: String(row.summary) };
  return {
    id: Number(row.id),
    eventId: Number(row.event_id),
    mapJobId: numOrNull(row.map_job_id),
    meetingKey: String(row.meeting_key),
    meetingId: numOrNull(row.meeting_id),
    outcome: String(row.outcome),
    rule: String(row.rule),
    summary: String(row.summary),
    record: withColumns(fromJson(row.record), columns),
    createdAt: Number(row.created_at),
  };
}

function toPin(row: Row): MeetingPin {
  return {
    meetingKey: String(row.meeting_key),
    records: fromJson(row.records) as PinnedRecords,
    pinnedBy: String(row.pinned_by),
    reason: String(row.reason),
    pinnedAt: Number(row.pinned_at),
  };
}

/** MatchStore over either engine, with SQL both accept (`$n` placeholders, rewritten by the runner). */
export function createSqlMatchStore(runner: SqlRunner): MatchStore {
  const q = (sql: string, params: readonly unknown[] = []) => runner.query(sql, params);
  return {
    async matchFor(eventId, at) {
      const rows =
        at === undefined
          ? await q(`SELECT * FROM match_records WHERE event_id = $1 ORDER BY id DESC LIMIT 1`, [eventId])
          : await q(`SELECT * FROM match_records WHERE event_id = $1 AND created_at <= CAST($2 AS BIGINT) ORDER BY id DESC LIMIT 1`, [eventId, at]);
      return rows[0] === undefined ? undefined : toMatch(rows[0]);
    },
    async meetingMatches(meetingKey, limit) {
      return (await q(`SELECT * FROM match_records WHERE meeting_key = $1 ORDER BY id DESC LIMIT CAST($2 AS INTEGER)`, [boundKey(meetingKey), limit])).map(
        toMatch,
      );
    },
    async matchesOfMeeting(meetingId, limit) {
      const rows = await q(`SELECT * FROM match_records WHERE meeting_id = CAST($1 AS BIGINT) ORDER BY id DESC LIMIT CAST($2 AS INTEGER)`, [meetingId, limit]);
      return rows.map(toMatch);
    },
    async latestByOutcome(outcome, limit, beforeId) {
      // The outcome index walks newest first; a meeting counts only while this is its newest record.
      const rows = await q(
        `SELECT m.* FROM match_records m
         WHERE m.outcome = $1 AND m.id < CAST($2 AS BIGINT)
           AND NOT EXISTS (SELECT 1 FROM match_records n WHERE n.meeting_key = m.meeting_key AND n.id > m.id)
         ORDER BY m.id DESC LIMIT CAST($3 AS INTEGER)`,
        [outcome, beforeId ?? Number.MAX_SAFE_INTEGER, limit],
      );
      return rows.map(toMatch);
    },
    async getPin(meetingKey) {
      const rows = await q(`SELECT * FROM meeting_pins WHERE meeting_key = $1`, [boundKey(meetingKey)]);
      return rows[0] === undefined ? undefined : toPin(rows[0]);
    },
    async setPin(pin) {
      await q(
        `INSERT INTO meeting_pins (meeting_key, records, pinned_by, reason, pinned_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (meeting_key) DO UPDATE SET records = excluded.records, pinned_by = excluded.pinned_by, reason = excluded.reason, pinned_at = excluded.pinned_at`,
        [boundKey(pin.meetingKey), toJson(pin.records), pin.pinnedBy, pin.reason, pin.pinnedAt],
      );
    },
    async meetingsTouching(touches, since, limit) {
      if (touches.length === 0) return [];
      // One indexed probe per touch, in one statement: (kind, value) leads the primary key.
      const pairs = touches.map((_, index) => `(kind = $${index * 2 + 3} AND value = $${index * 2 + 4})`).join(' OR ');
      const rows = await q(
        `SELECT DISTINCT meeting_key FROM match_touches WHERE at >= CAST($1 AS BIGINT) AND (${pairs}) ORDER BY meeting_key LIMIT CAST($2 AS INTEGER)`,
        [since, limit, ...touches.flatMap((touch) => [touch.kind, touch.value])],
      );
      return rows.map((row) => String(row.meeting_key));
    },
    async getWatermark(object) {
      const rows = await q(`SELECT modstamp FROM crm_watermarks WHERE object = $1`, [object]);
      return rows[0] === undefined ? undefined : String(rows[0].modstamp);
    },
    async clearPin(meetingKey) {
      const rows = await q(`DELETE FROM meeting_pins WHERE meeting_key = $1 RETURNING meeting_key`, [boundKey(meetingKey)]);
      return rows.length > 0;
    },
  };
}
