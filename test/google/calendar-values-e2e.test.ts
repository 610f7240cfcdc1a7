import { expect, it } from 'vitest';

import { holdsUnstorable, jobStates, searchDeliveries, storedJobs, storedTexts } from '../bridge/support/stored-jobs.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { describeEachEngine, expectSettled, queryRows, waitSettled } from '../support/stored-state.ts';
import { ANA, CALENDAR_ADMIN_KEY, calendarWorld, startWatching } from './support/calendar-world.ts';
import { meetingEvent } from './support/google-setup.ts';
import { activeChannelIds, fakeTokenPosition, storedCalendars } from './support/google-state.ts';

/*
 * Event values read from the Calendar API are typed by people and pasted from anywhere: a summary
 * may hold U+0000, a display name an unpaired surrogate. PostgreSQL keeps neither (not even as a
 * JSON escape once read as JSONB), so the bridge makes them storable where the page enters
 * (src/core/storable.ts): the meeting is still forwarded, never refused, never a dead job.
 */

const OPPORTUNITY = '0068d0000101XyZAAU';

const cleanups = cleanupAfterEach();

describeEachEngine('Google event values through startBridge', (engine) => {
  it('when an event summary holds U+0000 and an attendee name an unpaired surrogate, then the remap carries the cleaned title, nothing stored holds either, and the deliveries search answers 200', async () => {
    // Arrange
    const w = await calendarWorld(engine, cleanups);
    const bridge = await startWatching(w);
    const [channelId] = await activeChannelIds(w.database.url);
    w.google.upsertEvent(
      ANA,
      meetingEvent('evt-nul', 24, {
        summary: 'Pricing\u0000 review',
        description: 'Agenda\u0000: terms',
        attendees: [
          { email: ANA, organizer: true },
          { email: 'hank.buyer@globex.test', displayName: 'Hank \ud800Buyer' },
        ],
        extendedProperties: { private: { sfOpportunityId: OPPORTUNITY } },
      }),
    );

    // Act
    expect(await w.google.push(channelId!, 'exists')).toBe(200);
    const [remap] = await w.momentum.waitFor(1);
    await waitSettled(w.database.url);
    const search = await searchDeliveries(bridge.url, CALENDAR_ADMIN_KEY, 'pricing');

    // Assert: the meeting reached Momentum with its title made storable…
    expect(remap?.body).toMatchObject({ source: { type: 'GOOGLE_CALENDAR', id: 'evt-nul' }, meetingDetails: { title: 'Pricing review' } });
    // …the stored event holds the cleaned values, and no stored text holds U+0000 or an unpaired surrogate…
    const [event] = await queryRows(w.database.url, `SELECT parsed_payload FROM inbound_events WHERE source = 'google'`);
    expect(JSON.parse(String(event?.parsed_payload))).toMatchObject({
      title: 'Pricing review',
      description: 'Agenda: terms',
      attendees: [{ email: ANA }, { email: 'hank.buyer@globex.test', name: 'Hank \ufffdBuyer' }],
    });
    expect((await storedTexts(w.database.url)).filter((text) => holdsUnstorable(text))).toEqual([]);
    // …every job succeeded, the sync token is stored, and the search reads every payload without failing.
    await expectSettled(w.database.url);
    expect((await jobStates(w.database.url)).filter((job) => !job.startsWith('calendar-sync:'))).toEqual(['map-event:succeeded', 'remap:succeeded']);
    const [calendar] = await storedCalendars(w.database.url);
    expect(fakeTokenPosition(calendar!.syncToken)?.changes).toBe(1);
    const remapJob = (await storedJobs(w.database.url)).find((job) => job.kind === 'remap');
    expect(search).toEqual({ status: 200, ids: [remapJob!.id] });
  });
});
