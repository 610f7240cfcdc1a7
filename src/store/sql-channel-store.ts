import type { Channel, ChannelStore, WatchedCalendar } from './channel-store.ts';
import { num, numOrNull, textOrNull } from './row-mappers.ts';

/**
 * ChannelStore over any SQL engine the store runs (SQLite or PostgreSQL). Statements use `$n`
 * placeholders and SQL both engines accept; the runner rewrites placeholders for its dialect.
 */
export interface SqlRunner {
  readonly dialect: 'sqlite' | 'postgres';
  /** Runs one statement (`$1`, `$2`… placeholders) and resolves its rows (RETURNING included). */
  query(sql: string, params?: readonly unknown[]): Promise<Array<Record<string, unknown>>>;
}

type Row = Record<string, unknown>;

function toCalendar(row: Row): WatchedCalendar {
  return {
    calendarId: String(row.calendar_id),
    watching: num(row.watching) === 1,
    addedBy: String(row.added_by),
    syncToken: textOrNull(row.sync_token),
    lastSyncAt: numOrNull(row.last_sync_at),
    lastError: textOrNull(row.last_error),
    updatedAt: num(row.updated_at),
  };
}

function toChannel(row: Row): Channel {
  return {
    id: String(row.id),
    calendarId: String(row.calendar_id),
    token: String(row.token),
    resourceId: textOrNull(row.resource_id),
    expiration: num(row.expiration),
    createdAt: num(row.created_at),
    renewedAt: numOrNull(row.renewed_at),
    stoppedAt: numOrNull(row.stopped_at),
  };
}

export function createSqlChannelStore(runner: SqlRunner): ChannelStore {
  const q = (sql: string, params: readonly unknown[] = []) => runner.query(sql, params);

  return {
    async watchCalendar(calendarId, addedBy, now) {
      const rows = await q(
        `INSERT INTO google_calendars (calendar_id, watching, added_by, sync_token, updated_at) VALUES ($1, 1, $2, NULL, $3)
         ON CONFLICT (calendar_id) DO UPDATE SET watching = 1, added_by = excluded.added_by, updated_at = excluded.updated_at
         RETURNING *`,
        [calendarId, addedBy, now],
      );
      return toCalendar(rows[0]!);
    },
    async unwatchCalendar(calendarId, now) {
      const rows = await q(`UPDATE google_calendars SET watching = 0, updated_at = $2 WHERE calendar_id = $1 RETURNING calendar_id`, [calendarId, now]);
      return rows.length > 0;
    },
    async seedCalendars(calendarIds, now) {
      for (const calendarId of calendarIds) {
        await q(
          `INSERT INTO google_calendars (calendar_id, watching, added_by, sync_token, updated_at) VALUES ($1, 1, 'config', NULL, $2)
           ON CONFLICT (calendar_id) DO NOTHING`,
          [calendarId, now],
        );
      }
    },
    async getCalendar(calendarId) {
      const rows = await q(`SELECT * FROM google_calendars WHERE calendar_id = $1`, [calendarId]);
      return rows[0] === undefined ? undefined : toCalendar(rows[0]);
    },
    async listCalendars() {
      return (await q(`SELECT * FROM google_calendars ORDER BY calendar_id`)).map(toCalendar);
    },
    async setSyncToken(calendarId, syncToken, now) {
      await q(`UPDATE google_calendars SET sync_token = $2, updated_at = $3 WHERE calendar_id = $1`, [calendarId, syncToken, now]);
    },
    async recordCalendarOutcome(calendarId, outcome, now) {
      // Cast: PostgreSQL cannot tell the type of a parameter read only inside COALESCE (src/store/sql.ts).
      await q(
        `UPDATE google_calendars SET last_sync_at = COALESCE(CAST($2 AS BIGINT), last_sync_at), last_error = CAST($3 AS TEXT), updated_at = CAST($4 AS BIGINT)
         WHERE calendar_id = $1`,
        [calendarId, 'syncedAt' in outcome ? outcome.syncedAt : null, 'error' in outcome ? outcome.error : null, now],
      );
    },

    async saveChannel(channel) {
      await q(
        `INSERT INTO google_channels (id, calendar_id, token, resource_id, expiration, created_at, renewed_at, stopped_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (id) DO UPDATE SET resource_id = excluded.resource_id, expiration = excluded.expiration,
           renewed_at = excluded.renewed_at, stopped_at = excluded.stopped_at`,
        [channel.id, channel.calendarId, channel.token, channel.resourceId, channel.expiration, channel.createdAt, channel.renewedAt, channel.stoppedAt],
      );
    },
    async getChannel(id) {
      const rows = await q(`SELECT * FROM google_channels WHERE id = $1`, [id]);
      return rows[0] === undefined ? undefined : toChannel(rows[0]);
    },
    async activeChannels() {
      const rows = await q(`SELECT * FROM google_channels WHERE stopped_at IS NULL AND renewed_at IS NULL ORDER BY created_at, id`);
      return rows.map(toChannel);
    },
    async markRenewed(id, now) {
      await q(`UPDATE google_channels SET renewed_at = $2 WHERE id = $1 AND renewed_at IS NULL`, [id, now]);
    },
    async stopChannel(id, now) {
      await q(`UPDATE google_channels SET stopped_at = $2 WHERE id = $1 AND stopped_at IS NULL`, [id, now]);
    },

    async tryLease(name, owner, ttlMs, now) {
      // One statement, so two instances racing for a free lease cannot both win.
      const rows = await q(
        `INSERT INTO singleton_leases (name, owner, lease_until) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, lease_until = excluded.lease_until
         WHERE singleton_leases.owner = excluded.owner OR singleton_leases.lease_until <= $4
         RETURNING owner`,
        [name, owner, now + ttlMs, now],
      );
      return rows.length === 1;
    },
    async releaseLease(name, owner) {
      await q(`DELETE FROM singleton_leases WHERE name = $1 AND owner = $2`, [name, owner]);
    },
  };
}
