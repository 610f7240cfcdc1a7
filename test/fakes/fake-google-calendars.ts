import type { ServerResponse } from 'node:http';

import { b64url, googleError, send, unb64url } from './fake-google-replies.ts';

/**
 * The fake Google's calendars: every version of every event, numbered in one sequence per
 * calendar, and events.list over them: a full sync of live events in [timeMin, timeMax), or the
 * changes since a sync token, in pages; tokens of an older epoch answer 410 Gone.
 */

interface Version {
  seq: number;
  event: Record<string, unknown>;
}
interface Calendar {
  history: Map<string, Version[]>;
  seq: number;
  epoch: number;
}
type Cursor = { since?: number; timeMin?: string; timeMax?: string; snapshot: number; offset: number };

export interface FakeCalendars {
  upsertEvent(calendarId: string, event: Record<string, unknown>): Record<string, unknown>;
  cancelEvent(calendarId: string, eventId: string): void;
  invalidateSyncTokens(calendarId: string): void;
  /** Answers events.list for the calendar. */
  list(calendarId: string, query: Record<string, string>, res: ServerResponse): void;
}

export function createFakeCalendars(pageSize: number): FakeCalendars {
  const calendars = new Map<string, Calendar>();
  const calendar = (id: string) => {
    let state = calendars.get(id);
    if (!state) calendars.set(id, (state = { history: new Map(), seq: 0, epoch: 0 }));
    return state;
  };
  const record = (state: Calendar, id: string, event: Record<string, unknown>) => {
    state.history.set(id, [...(state.history.get(id) ?? []), { seq: state.seq, event }]);
  };

  return {
    upsertEvent(calendarId, event) {
      const state = calendar(calendarId);
      state.seq += 1;
      // Google's `updated` has millisecond precision; the sequence keeps two quick edits apart.
      const stored: Record<string, unknown> = {
        kind: 'calendar#event',
        status: 'confirmed',
        ...event,
        updated: event.updated ?? new Date(Date.now() + state.seq).toISOString(),
      };
      record(state, String(stored.id), stored);
      return stored;
    },
    cancelEvent(calendarId, eventId) {
      const state = calendar(calendarId);
      state.seq += 1;
      record(state, eventId, { kind: 'calendar#event', id: eventId, status: 'cancelled', updated: new Date(Date.now() + state.seq).toISOString() });
    },
    invalidateSyncTokens(calendarId) {
      calendar(calendarId).epoch += 1;
    },
    list(calendarId, query, res) {
      const state = calendar(calendarId);
      let cursor: Cursor | undefined;
      if (query.pageToken) cursor = unb64url<Cursor>(query.pageToken);
      else if (query.syncToken) {
        const token = unb64url<{ c: string; s: number; e: number }>(query.syncToken);
        if (!token || token.c !== calendarId || token.e !== state.epoch) {
          return send(res, 410, googleError(410, 'Sync token is no longer valid, a full sync is required.', 'fullSyncRequired'));
        }
        cursor = { since: token.s, snapshot: state.seq, offset: 0 };
      } else cursor = { timeMin: query.timeMin, timeMax: query.timeMax, snapshot: state.seq, offset: 0 };
      if (!cursor) return send(res, 400, googleError(400, 'Invalid page token', 'invalid'));
      const matching = versionsAt(state, cursor.snapshot).filter((version) => matches(version, cursor));
      const page = matching.slice(cursor.offset, cursor.offset + pageSize).map((version) => version.event);
      const more = cursor.offset + pageSize < matching.length;
      send(res, 200, {
        kind: 'calendar#events',
        summary: calendarId,
        items: page,
        ...(more
          ? { nextPageToken: b64url({ ...cursor, offset: cursor.offset + pageSize }) }
          : { nextSyncToken: b64url({ c: calendarId, s: cursor.snapshot, e: state.epoch }) }),
      });
    },
  };
}

/** The newest version of each event as it stood at `snapshot`, in sequence order. */
function versionsAt(state: Calendar, snapshot: number): Version[] {
  const latest: Version[] = [];
  for (const versions of state.history.values()) {
    const version = versions.filter((item) => item.seq <= snapshot).at(-1);
    if (version) latest.push(version);
  }
  return latest.sort((a, b) => a.seq - b.seq);
}

function matches(version: Version, cursor: Cursor): boolean {
  if (cursor.since !== undefined) return version.seq > cursor.since;
  // A full sync lists live events overlapping [timeMin, timeMax), without deletions.
  const event = version.event as { status?: string; start?: { dateTime?: string; date?: string }; end?: { dateTime?: string; date?: string } };
  const start = Date.parse(event.start?.dateTime ?? event.start?.date ?? '');
  const end = Date.parse(event.end?.dateTime ?? event.end?.date ?? '') || start;
  return event.status !== 'cancelled' && start < Date.parse(cursor.timeMax ?? '') && end > Date.parse(cursor.timeMin ?? '');
}
