import { queryRows } from '../../support/stored-state.ts';

/*
 * The Google watching state a bridge left in its database, read alike on both engines: the
 * watched calendars with their sync token and the time it was stored, and the push channels.
 */

export interface StoredCalendar {
  calendarId: string;
  watching: boolean;
  syncToken: string | null;
  /** When the row last changed: a completed sync stores its token at this time. */
  updatedAt: number;
}

export async function storedCalendars(databaseUrl: string): Promise<StoredCalendar[]> {
  const rows = await queryRows(databaseUrl, 'SELECT calendar_id, watching, sync_token, updated_at FROM google_calendars ORDER BY calendar_id');
  return rows.map((row) => ({
    calendarId: String(row.calendar_id),
    watching: Number(row.watching) === 1,
    syncToken: row.sync_token === null ? null : String(row.sync_token),
    updatedAt: Number(row.updated_at),
  }));
}

export interface StoredChannel {
  id: string;
  calendarId: string;
  resourceId: string | null;
  expiration: number;
  renewedAt: number | null;
  stoppedAt: number | null;
}

/** Every channel, oldest first. */
export async function storedChannels(databaseUrl: string): Promise<StoredChannel[]> {
  const rows = await queryRows(
    databaseUrl,
    'SELECT id, calendar_id, resource_id, expiration, renewed_at, stopped_at FROM google_channels ORDER BY created_at, id',
  );
  const orNull = (value: unknown) => (value === null ? null : Number(value));
  return rows.map((row) => ({
    id: String(row.id),
    calendarId: String(row.calendar_id),
    resourceId: row.resource_id === null ? null : String(row.resource_id),
    expiration: Number(row.expiration),
    renewedAt: orNull(row.renewed_at),
    stoppedAt: orNull(row.stopped_at),
  }));
}

/** The ids of the channels neither stopped nor replaced, oldest first. */
export const activeChannelIds = async (databaseUrl: string): Promise<string[]> =>
  (await storedChannels(databaseUrl)).filter((channel) => channel.stoppedAt === null && channel.renewedAt === null).map((channel) => channel.id);

/**
 * What a sync token of the fake Google covers: it issues base64url JSON `{c: calendar, s: change
 * sequence, e: epoch}` (test/fakes/fake-google-calendars.ts), so a stored token tells which changes its sync saw.
 */
export function fakeTokenPosition(token: string | null): { calendarId: string; changes: number; epoch: number } | undefined {
  if (token === null) return undefined;
  const { c, s, e } = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { c: string; s: number; e: number };
  return { calendarId: c, changes: s, epoch: e };
}
