import { expect, it } from 'vitest';

import { ADMIN_KEY, postRemaps, startPacedBridge } from '../bridge/support/paced-bridges.ts';
import { postCalendarEvent, TEAMS_MEETING, WEBHOOK_SECRET } from '../calendar/support/signed-events.ts';
import { startFakeMomentum } from '../fakes/fake-momentum.ts';
import { ANA, CALENDAR_ADMIN_KEY, calendarWorld, remaps, startWatching } from '../google/support/calendar-world.ts';
import { meetingEvent } from '../google/support/google-setup.ts';
import { activeChannelIds } from '../google/support/google-state.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { testDatabase } from '../support/real-store.ts';
import { describeEachEngine, expectSettled, queryRows, waitSettled } from '../support/stored-state.ts';
import { waitFor } from '../support/wait-for.ts';
import { meetingOfSource } from './support/admin-reads.ts';

/*
 * A cancelled meeting sends nothing, and what was pending for it is cancelled, through the real
 * startBridge on both engines: a signed meeting posted again with `"status": "cancelled"`, and a
 * Google event deleted in its calendar (an incremental sync brings it back `status: cancelled`).
 */

const OPPORTUNITY = '0068d0000101XyZAAU';
const cleanups = cleanupAfterEach();

const mapEventStates = (databaseUrl: string) =>
  queryRows(
    databaseUrl,
    `SELECT j.state, j.last_error, e.state AS event_state FROM jobs j JOIN inbound_events e ON e.id = j.event_id WHERE j.kind = 'map-event' ORDER BY j.id`,
  );

describeEachEngine('a cancelled meeting through startBridge', (engine) => {
  it('when a signed meeting is cancelled while its remap waits for the budget, then the remap is cancelled and nothing is sent for the meeting', async () => {
    // Arrange: a budget of one call per 2 s, spent by an operator's remap of another meeting.
    const momentum = await startFakeMomentum();
    const database = testDatabase(engine, 'cancel');
    cleanups.push(momentum.close, database.drop);
    const bridge = await startPacedBridge({ database, momentumUrl: momentum.url, rateLimit: '1/2s', env: { CALENDAR_WEBHOOK_SECRETS: WEBHOOK_SECRET } });
    cleanups.push(bridge.stop);
    await postRemaps([bridge.url], ['spends-the-budget'], 1);
    await momentum.waitFor(1);
    const meeting = { ...TEAMS_MEETING, id: 'teams-cancelled', salesforce: { opportunityId: OPPORTUNITY } };
    expect((await postCalendarEvent(bridge.url, JSON.stringify({ ...meeting, updated: '2026-03-01T09:00:00Z' }), { id: 'msg_meeting' })).status).toBe(202);
    await waitFor(
      'the remap to wait for the budget',
      async () => (await queryRows(bridge.databaseUrl, `SELECT id FROM jobs WHERE kind = 'remap' AND state = 'pending'`)).length === 1,
    );

    // Act
    const cancelled = { ...meeting, status: 'cancelled', updated: '2026-03-01T09:30:00Z' };
    expect((await postCalendarEvent(bridge.url, JSON.stringify(cancelled), { id: 'msg_cancel' })).status).toBe(202);
    await waitSettled(bridge.databaseUrl);
    // Past the budget's next slot: a remap still queued would have gone by now.
    await new Promise((resolve) => setTimeout(resolve, 2_300));

    // Assert: only the operator's remap reached Momentum; the meeting's remap ended cancelled with why.
    expect(momentum.requests).toHaveLength(1);
    const [remap] = await queryRows(bridge.databaseUrl, `SELECT state, last_error FROM jobs WHERE kind = 'remap' AND event_id IS NOT NULL`);
    expect(remap).toMatchObject({ state: 'cancelled', last_error: expect.stringMatching(/^cancelled: the meeting was cancelled at its source/) });
    expect(await mapEventStates(bridge.databaseUrl)).toEqual([
      { state: 'succeeded', last_error: null, event_state: 'mapped' },
      { state: 'skipped', last_error: expect.stringMatching(/^cancelled in its calendar/), event_state: 'skipped' },
    ]);
    const page = await meetingOfSource(bridge.url, ADMIN_KEY, 'calendar:calendar:teams-cancelled');
    expect(page).toMatchObject({ cancelled: true, sources: [expect.objectContaining({ source: 'calendar', cancelled: true })] });
    await expectSettled(bridge.databaseUrl);
  });

  it('when a Google event that was sent is deleted in its calendar, then the cancellation is stored and mapped, and nothing more is sent', async () => {
    // Arrange
    const w = await calendarWorld(engine, cleanups);
    const bridge = await startWatching(w);
    const [channelId] = await activeChannelIds(w.database.url);
    w.google.upsertEvent(ANA, meetingEvent('evt-gone', 24, { extendedProperties: { private: { sfOpportunityId: OPPORTUNITY } } }));
    await w.google.push(channelId!, 'exists');
    await w.momentum.waitFor(1);
    await waitSettled(w.database.url);

    // Act
    w.google.cancelEvent(ANA, 'evt-gone');
    await w.google.push(channelId!, 'exists');
    await waitFor('the cancellation to be mapped', async () => (await mapEventStates(w.database.url)).length === 2);
    await waitSettled(w.database.url);

    // Assert: one remap ever; the cancellation's mapping ended skipped with why; the meeting page says cancelled.
    expect(remaps(w.momentum)).toHaveLength(1);
    expect((await mapEventStates(w.database.url)).map((job) => job.state)).toEqual(['succeeded', 'skipped']);
    expect(await queryRows(w.database.url, `SELECT state FROM jobs WHERE kind = 'remap'`)).toEqual([{ state: 'succeeded' }]);
    const page = await meetingOfSource(bridge.url, CALENDAR_ADMIN_KEY, 'google:google:evt-gone');
    expect(page.sources).toEqual([expect.objectContaining({ source: 'google', cancelled: true })]);
    expect(page.events.map((event) => event.state)).toEqual(['skipped', 'mapped']);
    await expectSettled(w.database.url);
  });
});
