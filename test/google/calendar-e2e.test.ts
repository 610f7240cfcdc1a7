import { expect, it } from 'vitest';

import { jobStates } from '../bridge/support/stored-jobs.ts';
import { sfId } from '../calendar/support/directory-setup.ts';
import { postCalendarEvent } from '../calendar/support/signed-events.ts';
import { startFakeSalesforceRecords } from '../fakes/fake-salesforce-records.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { describeEachEngine, expectSettled, storedJobStates, waitSettled } from '../support/stored-state.ts';
import { waitFor } from '../support/wait-for.ts';
import { ANA, type CalendarWorld, calendarWorld, remaps, startWatching } from './support/calendar-world.ts';
import { meetingEvent } from './support/google-setup.ts';
import { activeChannelIds, fakeTokenPosition, storedCalendars, storedChannels } from './support/google-state.ts';

/*
 * Google Calendar end to end through the real startBridge wiring, on each engine: a fake Google
 * pushing and listing, a fake Momentum receiving, and the watching state the bridge stored (sync
 * token and the time it was stored, channels, jobs).
 */

const OPPORTUNITY = '0068d0000101XyZAAU';

const cleanups = cleanupAfterEach();

/** The start time of the first remap sent, so an edit can keep it exactly. */
const remapStart = (w: CalendarWorld) => ({ dateTime: (remaps(w.momentum)[0]?.body as { meetingDetails: { startTime: string } }).meetingDetails.startTime });

/** The one watched calendar: its sync token's position at the fake Google, and when it was stored. */
async function calendarState(w: CalendarWorld) {
  const calendars = await storedCalendars(w.database.url);
  expect(calendars.map((calendar) => [calendar.calendarId, calendar.watching])).toEqual([[ANA, true]]);
  return { token: fakeTokenPosition(calendars[0]!.syncToken), storedAt: calendars[0]!.updatedAt };
}

describeEachEngine('calendar webhooks end to end', (engine) => {
  it('when the bridge starts, a meeting gets a Salesforce id and Google pushes "exists", then Momentum receives the remap and the sync token, channel and jobs are stored', async () => {
    // Arrange
    const w = await calendarWorld(engine, cleanups);
    await startWatching(w);
    const [channelId] = await activeChannelIds(w.database.url);
    const event = w.google.upsertEvent(
      ANA,
      meetingEvent('evt-pricing', 24, { summary: 'Pricing review', extendedProperties: { private: { sfOpportunityId: OPPORTUNITY } } }),
    );
    const pushedAt = Date.now();

    // Act
    expect(await w.google.push(channelId!, 'exists')).toBe(200);
    const [remap] = await w.momentum.waitFor(1);
    await waitSettled(w.database.url);

    // Assert: what Momentum received…
    const atGoogle = w.google.channels.get(channelId!);
    expect(atGoogle?.address).toBe(`${w.bridges[0]!.url}/calendar/google/notifications`);
    expect(remap?.path).toBe('/v1/meeting/remap');
    expect(remap?.headers['x-api-key']).toBe('mk-test-key');
    expect(remap?.body).toEqual({
      source: { type: 'GOOGLE_CALENDAR', id: 'evt-pricing' },
      salesforceRecords: { opportunityId: OPPORTUNITY },
      meetingDetails: { title: 'Pricing review', startTime: (event.start as { dateTime: string }).dateTime, hostEmail: ANA },
    });
    // …and what the bridge stored: the token of the sync that saw the change, stored after the push…
    const calendar = await calendarState(w);
    expect(calendar.token).toEqual({ calendarId: ANA, changes: 1, epoch: 0 });
    expect(calendar.storedAt).toBeGreaterThanOrEqual(pushedAt);
    // …the one live channel as Google made it, and every job succeeded at its first attempt.
    expect(await storedChannels(w.database.url)).toEqual([
      { id: channelId, calendarId: ANA, resourceId: atGoogle?.resourceId, expiration: atGoogle?.expiration, renewedAt: null, stoppedAt: null },
    ]);
    await expectSettled(w.database.url);
    // Sorted: the start's second sync may be stored before or after the push's mapping job.
    expect((await jobStates(w.database.url)).sort()).toEqual(['calendar-sync:succeeded', 'calendar-sync:succeeded', 'map-event:succeeded', 'remap:succeeded']);
  });

  it('when an edit changes nothing Momentum sees, then the event is mapped again but the remap is not re-sent', async () => {
    // Arrange
    const w = await calendarWorld(engine, cleanups);
    await startWatching(w);
    const [channelId] = await activeChannelIds(w.database.url);
    const fields = { summary: 'Pricing review', extendedProperties: { private: { sfOpportunityId: OPPORTUNITY } } };
    w.google.upsertEvent(ANA, meetingEvent('evt-pricing', 24, fields));
    await w.google.push(channelId!, 'exists');
    await w.momentum.waitFor(1);
    await waitSettled(w.database.url);
    // Same event, new `updated` and a new location: a new inbound event, the same remap request.
    const original = w.google.requestsOf('list').length;
    w.google.upsertEvent(ANA, { ...meetingEvent('evt-pricing', 24, fields), start: remapStart(w), location: 'Room 4' });

    // Act
    await w.google.push(channelId!, 'exists');
    await waitFor('the second remap job to be stored', async () => (await jobStates(w.database.url)).filter((job) => job.startsWith('remap:')).length === 2);
    await waitSettled(w.database.url);

    // Assert
    expect(w.google.requestsOf('list').length).toBeGreaterThan(original);
    expect((await jobStates(w.database.url)).filter((job) => job.startsWith('remap:'))).toEqual(['remap:succeeded', 'remap:skipped']);
    expect(remaps(w.momentum)).toHaveLength(1);
    expect((await calendarState(w)).token).toEqual({ calendarId: ANA, changes: 2, epoch: 0 });
    await expectSettled(w.database.url);
  });

  it('when a notification is dropped, then the backstop sync still brings the change to Momentum and stores its token', async () => {
    // Arrange: the backstop sync runs every second here (GOOGLE_BACKSTOP_SYNC), and no notification is pushed.
    const w = await calendarWorld(engine, cleanups);
    await startWatching(w, { GOOGLE_BACKSTOP_SYNC: '1s' });

    // Act
    w.google.upsertEvent(ANA, meetingEvent('evt-dropped', 30, { extendedProperties: { shared: { sfAccountId: '0018d0000101XyZAAU' } } }));
    const [remap] = await w.momentum.waitFor(1);
    await waitFor('the sync that saw the change to store its token', async () => (await calendarState(w)).token?.changes === 1);
    await waitFor('the remap to be stored as succeeded', async () => (await jobStates(w.database.url)).includes('remap:succeeded'));

    // Assert: backstop syncs keep coming every second, so the queue is read as it is, not waited on.
    expect(remap?.body).toMatchObject({ source: { type: 'GOOGLE_CALENDAR', id: 'evt-dropped' }, salesforceRecords: { accountId: '0018d0000101XyZAAU' } });
    const jobs = await storedJobStates(w.database.url);
    expect(jobs.filter((job) => job.state === 'dead' || job.attempts > 1)).toEqual([]);
    expect(jobs.filter((job) => job.kind !== 'calendar-sync').map((job) => `${job.kind}:${job.state}`)).toEqual(['map-event:succeeded', 'remap:succeeded']);
    expect(jobs.filter((job) => job.kind === 'calendar-sync' && job.state === 'succeeded').length).toBeGreaterThanOrEqual(1);
  });

  it('when Google answers 410 to the stored sync token, then a full sync runs, the change still arrives once and the new token is stored', async () => {
    // Arrange
    const w = await calendarWorld(engine, cleanups);
    w.google.upsertEvent(ANA, meetingEvent('evt-old', 5, { description: `https://acme.my.salesforce.com/${OPPORTUNITY}` }));
    await startWatching(w);
    await w.momentum.waitFor(1); // the start-up sync maps what is already there
    await waitSettled(w.database.url);
    const [channelId] = await activeChannelIds(w.database.url);
    w.google.invalidateSyncTokens(ANA);
    w.google.upsertEvent(ANA, meetingEvent('evt-new', 6, { description: `Deal ${OPPORTUNITY}` }));

    // Act
    await w.google.push(channelId!, 'exists');
    await w.momentum.waitFor(2);
    await waitSettled(w.database.url);

    // Assert: the rejected token was used, then a full sync without one; its token is of the new epoch.
    const lists = w.google.requestsOf('list');
    expect(lists.some((request) => request.query.syncToken !== undefined)).toBe(true);
    expect(lists.at(-1)?.query.syncToken).toBeUndefined();
    expect(remaps(w.momentum).map((request) => (request.body as { source: { id: string } }).source.id)).toEqual(['evt-old', 'evt-new']);
    expect((await calendarState(w)).token).toEqual({ calendarId: ANA, changes: 2, epoch: 1 });
    // The 410 is handled inside the one attempt: nothing retried, nothing dead.
    await expectSettled(w.database.url);
  });

  it('when a signed generic event names attendees only, then the attendee match reaches Momentum with its declared source type', async () => {
    // Arrange
    const w = await calendarWorld(engine, cleanups);
    const account = sfId('001', 1);
    const fake = await startFakeSalesforceRecords({
      contacts: [{ Id: sfId('003', 1), Email: 'hank.buyer@globex.test', AccountId: account }],
      opportunities: [
        {
          Id: sfId('006', 1),
          AccountId: account,
          IsClosed: false,
          CloseDate: '2026-09-30',
          CreatedDate: '2026-01-01T00:00:00.000+0000',
          LastModifiedDate: '2026-02-01T00:00:00.000+0000',
          OwnerEmail: ANA,
        },
      ],
    });
    cleanups.push(fake.close);
    const bridge = await startWatching(w, { SALESFORCE_LOGIN_URL: fake.url, SALESFORCE_CLIENT_ID: 'bridge-app', SALESFORCE_CLIENT_SECRET: 'right-secret' });
    const raw = JSON.stringify({
      version: 1,
      id: 'outlook-123',
      sourceType: 'MS_TEAMS',
      title: 'Globex sync',
      start: '2026-03-02T16:00:00Z',
      end: '2026-03-02T16:30:00Z',
      organizer: { email: ANA },
      attendees: [{ email: 'hank.buyer@globex.test' }],
    });

    // Act
    const response = await postCalendarEvent(bridge.url, raw, { id: 'msg_1' });
    const [remap] = await w.momentum.waitFor(1);
    await waitSettled(w.database.url);

    // Assert
    expect(response.status).toBe(202);
    expect(remap?.body).toEqual({
      source: { type: 'MS_TEAMS', id: 'outlook-123' },
      salesforceRecords: { accountId: account, opportunityId: sfId('006', 1) },
      meetingDetails: { title: 'Globex sync', startTime: '2026-03-02T16:00:00Z', hostEmail: ANA },
    });
    await expectSettled(w.database.url);
    expect((await jobStates(w.database.url)).filter((job) => !job.startsWith('calendar-sync:'))).toEqual(['map-event:succeeded', 'remap:succeeded']);
  });
});
