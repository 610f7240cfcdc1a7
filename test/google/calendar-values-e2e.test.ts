import { expect, it } from 'vitest';

import { holdsUnstorable, jobStates, searchDeliveries, storedJobs, storedTexts } from '../bridge/support/stored-jobs.ts';
import { sfId } from '../calendar/support/directory-setup.ts';
import { postCalendarEvent } from '../calendar/support/signed-events.ts';
import { startFakeSalesforceRecords } from '../fakes/fake-salesforce-records.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { describeEachEngine, expectSettled, queryRows, waitSettled } from '../support/stored-state.ts';
import { ANA, CALENDAR_ADMIN_KEY, calendarWorld, startWatching } from './support/calendar-world.ts';
import { meetingEvent } from './support/google-setup.ts';
import { activeChannelIds, fakeTokenPosition, storedCalendars } from './support/google-state.ts';

/*
 * Values read from upstream APIs for a calendar meeting are typed by people and pasted from
 * anywhere: a Google summary may hold U+0000, a display name an unpaired surrogate, a Salesforce
 * email U+0000. PostgreSQL keeps neither (not even as a JSON escape once read as JSONB), so the
 * bridge makes them storable where the answer enters (src/core/storable.ts): the meeting is still
 * forwarded, never refused, never a dead job.
 */

const OPPORTUNITY = '0068d0000101XyZAAU';

const cleanups = cleanupAfterEach();

/** An open opportunity of `account` last modified on `modified`, owned by `ownerEmail`. */
const opportunity = (id: string, account: string, modified: string, ownerEmail: string) => ({
  Id: id,
  AccountId: account,
  IsClosed: false,
  CloseDate: '2026-09-30',
  CreatedDate: '2026-01-01T00:00:00.000+0000',
  LastModifiedDate: modified,
  OwnerEmail: ownerEmail,
});

describeEachEngine('upstream values of calendar meetings through startBridge', (engine) => {
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

  it('when the Salesforce lookup answers an opportunity owner email holding U+0000, then the owner still counts as attending and that opportunity reaches Momentum', async () => {
    // Arrange: two open opportunities of the attendee's account; the older one's owner is the organiser, as Salesforce spells her email.
    const w = await calendarWorld(engine, cleanups);
    const account = sfId('001', 1);
    const salesforce = await startFakeSalesforceRecords({
      contacts: [{ Id: sfId('003', 1), Email: 'hank.buyer@globex.test', AccountId: account }],
      opportunities: [
        opportunity(sfId('006', 1), account, '2026-02-01T00:00:00.000+0000', 'ana.rep@exam\u0000ple.com'),
        opportunity(sfId('006', 2), account, '2026-02-20T00:00:00.000+0000', 'bo.rep@example.com'),
      ],
    });
    cleanups.push(salesforce.close);
    const bridge = await startWatching(w, {
      SALESFORCE_LOGIN_URL: salesforce.url,
      SALESFORCE_CLIENT_ID: 'bridge-app',
      SALESFORCE_CLIENT_SECRET: 'right-secret',
    });
    const raw = JSON.stringify({
      version: 1,
      id: 'teams-77',
      sourceType: 'MS_TEAMS',
      title: 'Globex renewal',
      start: '2026-03-02T16:00:00Z',
      end: '2026-03-02T16:30:00Z',
      organizer: { email: ANA },
      attendees: [{ email: 'hank.buyer@globex.test' }],
    });

    // Act
    const response = await postCalendarEvent(bridge.url, raw, { id: 'msg_77' });
    const [remap] = await w.momentum.waitFor(1);
    await waitSettled(w.database.url);

    // Assert: the attending owner's opportunity wins over the newer one.
    expect(response.status).toBe(202);
    expect(remap?.body).toMatchObject({ salesforceRecords: { accountId: account, opportunityId: sfId('006', 1) }, meetingDetails: { hostEmail: ANA } });
    await expectSettled(w.database.url);
    expect((await jobStates(w.database.url)).filter((job) => !job.startsWith('calendar-sync:'))).toEqual(['map-event:succeeded', 'remap:succeeded']);
    expect((await storedTexts(w.database.url)).filter((text) => holdsUnstorable(text))).toEqual([]);
  });
});
