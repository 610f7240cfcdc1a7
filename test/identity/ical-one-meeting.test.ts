import { expect, it } from 'vitest';

import { postCalendarEvent, TEAMS_MEETING, WEBHOOK_SECRET } from '../calendar/support/signed-events.ts';
import { ANA, customerMeeting, OPPORTUNITY } from '../microsoft/support/ms-bridge.ts';
import { microsoftScene } from '../microsoft/support/ms-setup.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { describeEachEngine, expectSettled, queryRows, waitSettled } from '../support/stored-state.ts';
import { waitFor } from '../support/wait-for.ts';
import { meetingOfSource, sourcesOf } from './support/admin-reads.ts';

/*
 * An Outlook meeting seen twice: through Microsoft Graph (the watched mailbox) and through a flow
 * posting it to the signed route with its iCalUId. Through the real startBridge on both engines
 * the two are one meeting, joined by the UID alone (the flow names another host and title).
 */

const ADMIN_KEY = 'identity-admin-key-0123456789';
const cleanups = cleanupAfterEach();

describeEachEngine('one meeting across Microsoft 365 and a signed event through startBridge', (engine) => {
  const setup = microsoftScene(engine, cleanups);

  it('when a signed meeting carries the iCalUId of an Outlook event, then both are one meeting whose page lists both sources', async () => {
    // Arrange: the mailbox's meeting reaches Momentum first.
    const { microsoft, momentum, running, subscription } = await setup({ env: { CALENDAR_WEBHOOK_SECRETS: WEBHOOK_SECRET, ADMIN_API_KEYS: ADMIN_KEY } });
    const outlook = microsoft.upsertEvent(ANA, customerMeeting());
    await microsoft.notify(subscription.id, 'created', outlook.id);
    await momentum.waitFor(1, 15_000);
    await waitSettled(running.bridge.databaseUrl);

    // Act: the flow posts the same meeting, under its own id and organizer, with Outlook's UID.
    const signed = {
      ...TEAMS_MEETING,
      id: 'flow-item-7',
      title: 'Pricing review (from the flow)',
      start: '2026-12-02T16:00:00Z',
      end: '2026-12-02T16:30:00Z',
      organizer: { email: 'bo.rep@example.com' },
      iCalUId: outlook.iCalUId,
      salesforce: { opportunityId: OPPORTUNITY },
    };
    expect((await postCalendarEvent(running.bridge.url, JSON.stringify(signed), { id: 'msg_flow_7' })).status).toBe(202);
    await momentum.waitFor(2, 15_000);
    await waitSettled(running.bridge.databaseUrl);
    const meeting = await meetingOfSource(running.bridge.url, ADMIN_KEY, 'calendar:calendar:flow-item-7');

    // Assert: one meeting with both sources; each source's match record and remap are on its page.
    expect(sourcesOf(meeting)).toEqual([
      ['calendar', 'calendar:calendar:flow-item-7'],
      ['microsoft', `microsoft:microsoft:${outlook.id}`],
    ]);
    expect(meeting.matches.map((match) => match.meetingKey).sort()).toEqual(['calendar:calendar:flow-item-7', `microsoft:microsoft:${outlook.id}`]);
    expect(meeting.deliveries.map((delivery) => `${delivery.kind}:${delivery.state}`)).toEqual(['remap:succeeded', 'remap:succeeded']);
    expect(momentum.requests.map((request) => (request.body as { source?: { type: string } }).source?.type)).toEqual([undefined, 'MS_TEAMS']);
    const keys = await running.rows(`SELECT DISTINCT coalesce_key FROM jobs WHERE kind = 'remap'`);
    expect(keys).toEqual([{ coalesce_key: `meeting-id:${meeting.meetingId}` }]);
    expect(await queryRows(running.bridge.databaseUrl, `SELECT COUNT(*) AS n FROM meetings`)).toEqual([{ n: 1 }]);
    await expectSettled(running.bridge.databaseUrl);
  });

  it('when the Outlook meeting is deleted, then Graph’s removed item is stored as its cancellation and nothing more is sent', async () => {
    // Arrange
    const { microsoft, momentum, running, subscription } = await setup({ env: { ADMIN_API_KEYS: ADMIN_KEY } });
    const outlook = microsoft.upsertEvent(ANA, customerMeeting());
    await microsoft.notify(subscription.id, 'created', outlook.id);
    await momentum.waitFor(1, 15_000);
    await waitSettled(running.bridge.databaseUrl);

    // Act
    microsoft.deleteEvent(ANA, outlook.id);
    await microsoft.notify(subscription.id, 'deleted', outlook.id);
    await waitFor('the removal to be mapped', async () => (await running.rows(`SELECT id FROM jobs WHERE kind = 'map-event'`)).length === 2);
    await waitSettled(running.bridge.databaseUrl);

    // Assert: the removal names only the event; it maps to nothing sent, and its meeting reads cancelled.
    expect(momentum.requests).toHaveLength(1);
    const meeting = await meetingOfSource(running.bridge.url, ADMIN_KEY, `microsoft:microsoft:${outlook.id}`);
    expect(meeting).toMatchObject({ cancelled: true, sources: [expect.objectContaining({ source: 'microsoft', cancelled: true })] });
    expect(meeting.events.map((event) => event.state)).toEqual(['skipped', 'mapped']);
    await expectSettled(running.bridge.databaseUrl);
  });
});
