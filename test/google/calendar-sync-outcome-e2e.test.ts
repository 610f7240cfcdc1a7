import { expect, it } from 'vitest';

import { cleanupAfterEach } from '../support/cleanups.ts';
import { describeEachEngine, queryRows, storedJobStates, waitSettled } from '../support/stored-state.ts';
import { ANA, CALENDAR_ADMIN_KEY, type CalendarWorld, calendarWorld, startWatching } from './support/calendar-world.ts';
import { activeChannelIds } from './support/google-state.ts';

/*
 * GET /admin/calendars shows, for a Google calendar as for a Microsoft mailbox, when its last sync
 * succeeded and why the last one failed: through the real startBridge wiring, on each engine, with
 * the row the bridge stored beside the answer.
 */

const cleanups = cleanupAfterEach();

interface CalendarView {
  provider: string;
  calendarId: string;
  lastSyncAt: string | null;
  lastError: string | null;
}

async function listed(bridgeUrl: string): Promise<CalendarView[]> {
  const response = await fetch(`${bridgeUrl}/admin/calendars`, { headers: { authorization: `Bearer ${CALENDAR_ADMIN_KEY}` } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { calendars: CalendarView[] }).calendars;
}

async function storedOutcome(w: CalendarWorld): Promise<{ lastSyncAt: number | null; lastError: string | null }> {
  const [row] = await queryRows(w.database.url, 'SELECT last_sync_at, last_error FROM google_calendars WHERE calendar_id = $1', [ANA]);
  return { lastSyncAt: row?.last_sync_at == null ? null : Number(row.last_sync_at), lastError: row?.last_error == null ? null : String(row.last_error) };
}

describeEachEngine('GET /admin/calendars: a Google calendar’s last sync and last error', (engine) => {
  it('when the first sync succeeds, then the calendar shows when, no error, and the row holds the same time', async () => {
    const w = await calendarWorld(engine, cleanups);
    const startedAt = Date.now();
    const bridge = await startWatching(w);

    await waitSettled(w.database.url);
    const [calendar] = await listed(bridge.url);
    const stored = await storedOutcome(w);

    expect(calendar).toMatchObject({ provider: 'google', calendarId: ANA, lastError: null });
    expect(stored.lastError).toBeNull();
    expect(stored.lastSyncAt).toBeGreaterThanOrEqual(startedAt);
    expect(calendar?.lastSyncAt).toBe(new Date(stored.lastSyncAt!).toISOString());
  });

  it('when Google refuses the sync, then lastError names the call and Google’s answer; when the next sync succeeds, then it is cleared', async () => {
    const w = await calendarWorld(engine, cleanups);
    w.google.fail('list', 403);
    const bridge = await startWatching(w);

    await waitSettled(w.database.url);
    const [failed] = await listed(bridge.url);
    const storedAfterFailure = await storedOutcome(w);

    expect(failed).toMatchObject({ provider: 'google', calendarId: ANA, lastSyncAt: null, lastError: 'events.list: HTTP 403 scripted failure' });
    expect(storedAfterFailure).toEqual({ lastSyncAt: null, lastError: 'events.list: HTTP 403 scripted failure' });
    expect((await storedJobStates(w.database.url)).filter((job) => job.kind === 'calendar-sync').map((job) => job.state)).toEqual(['dead']);

    const [channelId] = await activeChannelIds(w.database.url);
    expect(await w.google.push(channelId!, 'exists')).toBe(200);
    await waitSettled(w.database.url);
    const [recovered] = await listed(bridge.url);
    const storedAfterRecovery = await storedOutcome(w);

    expect(recovered?.lastError).toBeNull();
    expect(storedAfterRecovery.lastError).toBeNull();
    expect(recovered?.lastSyncAt).toBe(new Date(storedAfterRecovery.lastSyncAt!).toISOString());
  });
});
