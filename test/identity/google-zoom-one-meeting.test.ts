import { expect, it } from 'vitest';

import { recordingCompletedEvent, sendEvent } from '../fakes/fake-zoom.ts';
import { ANA, CALENDAR_ADMIN_KEY, calendarWorld, remaps, startWatching } from '../google/support/calendar-world.ts';
import { meetingEvent } from '../google/support/google-setup.ts';
import { activeChannelIds } from '../google/support/google-state.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { describeEachEngine, expectSettled, queryRows, waitSettled } from '../support/stored-state.ts';
import { waitFor } from '../support/wait-for.ts';
import { meetingOfSource, sourcesOf } from './support/admin-reads.ts';

/*
 * One call seen twice: a Google Calendar event carrying a Zoom conference, and Zoom's recording of
 * that call. Through the real startBridge on both engines they are one meeting (joined by the Zoom
 * meeting number in the event's join link), its page lists both sources, and once the recording is
 * imported a later change of the event reaches the imported meeting.
 */

const ZOOM_SECRET = 'zoom-identity-secret-0001';
const OPPORTUNITY = '0068d0000101XyZAAU';
const LATER_OPPORTUNITY = '0068d0000202XyZAAU';
const ZOOM_NUMBER = 85_012_345_678;
const UUID = 'qRsT9xYzAAAiAiAiiAii==';
const BO = 'bo.rep@example.com';
const cleanups = cleanupAfterEach();

const zoomCall = (extra: Record<string, unknown> = {}) => ({
  summary: 'Globex pricing review',
  conferenceData: { entryPoints: [{ entryPointType: 'video', uri: `https://us02web.zoom.us/j/${ZOOM_NUMBER}?pwd=Zm9v` }] },
  extendedProperties: { private: { sfOpportunityId: OPPORTUNITY } },
  ...extra,
});

describeEachEngine('one meeting across Google Calendar and a Zoom recording through startBridge', (engine) => {
  it('when a Google event and the Zoom recording of its call arrive, then they are one meeting whose page lists both sources, and a later change reaches the imported meeting', async () => {
    // Arrange: the bridge watches Ana's calendar and takes Zoom's webhooks.
    const w = await calendarWorld(engine, cleanups);
    const bridge = await startWatching(w, { ZOOM_WEBHOOK_SECRET_TOKENS: ZOOM_SECRET });
    const [channelId] = await activeChannelIds(w.database.url);
    const event = w.google.upsertEvent(ANA, meetingEvent('evt-call', 24, zoomCall()));
    // Zoom's times are whole seconds, two minutes after the calendar's start here.
    const zoomStart = new Date(Date.parse((event.start as { dateTime: string }).dateTime) + 120_000).toISOString().replace(/\.\d{3}Z$/, 'Z');

    // Act: the event is sent; the call is recorded and imported.
    await w.google.push(channelId!, 'exists');
    await w.momentum.waitFor(1);
    const recording = recordingCompletedEvent({
      uuid: UUID,
      id: ZOOM_NUMBER,
      topic: 'Globex pricing review',
      // A colleague opened the Zoom call: only the meeting number ties the recording to Ana's event.
      host_email: BO,
      start_time: zoomStart,
      duration: 30,
    });
    expect((await sendEvent(`${bridge.url}/recordings/zoom/events`, ZOOM_SECRET, recording)).status).toBe(200);
    const [, imported] = await w.momentum.waitFor(2);
    await waitSettled(w.database.url);
    const meeting = await meetingOfSource(bridge.url, CALENDAR_ADMIN_KEY, 'google:google:evt-call');

    // Assert: one meeting, both sources, each source's event, match record and delivery on its page.
    expect(imported?.path).toBe('/user-provided-meeting');
    expect(sourcesOf(meeting)).toEqual([
      ['google', 'google:google:evt-call'],
      ['zoom', `zoom:zoom:${UUID}`],
    ]);
    expect(meeting.sources.find((source) => source.source === 'zoom')).toMatchObject({ importedId: UUID, host: BO, cancelled: false });
    expect(meeting).toMatchObject({ absorbedIds: [], title: 'Globex pricing review', cancelled: false });
    expect(meeting.events.map((item) => item.source).sort()).toEqual(['google', 'zoom']);
    expect(meeting.deliveries.map((delivery) => `${delivery.kind}:${delivery.state}`).sort()).toEqual(['import:succeeded', 'remap:succeeded']);
    expect(meeting.matches.map((match) => [match.meetingKey, match.meetingId]).sort()).toEqual([
      ['google:google:evt-call', meeting.meetingId],
      [`zoom:zoom:${UUID}`, meeting.meetingId],
    ]);

    // Act: the event changes opportunity after the recording was imported.
    w.google.upsertEvent(ANA, {
      ...meetingEvent('evt-call', 24, zoomCall()),
      start: event.start,
      end: event.end,
      extendedProperties: { private: { sfOpportunityId: LATER_OPPORTUNITY } },
    });
    await w.google.push(channelId!, 'exists');
    await waitFor('the change to reach Momentum', () => remaps(w.momentum).length === 2);
    await waitSettled(w.database.url);

    // Assert: the remap names the imported meeting (its import id, as Momentum lists imports) with the details it was imported with.
    expect(remaps(w.momentum).map((request) => request.body)).toEqual([
      expect.objectContaining({ source: { type: 'GOOGLE_CALENDAR', id: 'evt-call' }, salesforceRecords: { opportunityId: OPPORTUNITY } }),
      {
        source: { type: 'USER_PROVIDED', id: UUID },
        salesforceRecords: { opportunityId: LATER_OPPORTUNITY },
        meetingDetails: { title: 'Globex pricing review', startTime: new Date(zoomStart).toISOString(), hostEmail: BO },
      },
    ]);
    // Both remaps of the meeting share its key, whichever source and naming they came from.
    const keys = await queryRows(w.database.url, `SELECT DISTINCT coalesce_key FROM jobs WHERE kind = 'remap'`);
    expect(keys).toEqual([{ coalesce_key: `meeting-id:${meeting.meetingId}` }]);
    await expectSettled(w.database.url);
  });
});
