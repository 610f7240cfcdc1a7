import request from 'supertest';
import { expect, it } from 'vitest';

import { MAX_ATTENDEES } from '../../src/core/attendee-bound.ts';
import { recordingCompletedEvent, sendEvent, ZOOM_UUIDS } from '../fakes/fake-zoom.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { describeEachEngine, expectSettled, waitSettled } from '../support/stored-state.ts';
import { ADMIN_KEY, importsAt, meetingOf, SECRET, startZoomBridge, storedEvents, storedJobs } from './support/zoom-bridge.ts';

/*
 * What the mapping job reads from Zoom's participants API, on both engines: values Zoom returns are
 * made storable (never refused, never a failed job), a uuid that is a dot segment still names its
 * meeting in the request path, and a meeting with more participants than an import carries is
 * forwarded bounded, the truncation on record where the delivery's page shows it.
 */

const cleanups = cleanupAfterEach();

describeEachEngine("Zoom's participants API through startBridge", (engine) => {
  it('when Zoom returns U+0000 or an unpaired surrogate in a name or an email, then the import carries them made storable and no job fails or retries', async () => {
    const { momentum, zoom, url, databaseUrl } = await startZoomBridge(engine, cleanups);
    zoom.setParticipants(ZOOM_UUIDS.plain, [
      { name: 'Gail\u0000 Buyer', user_email: 'gail@globex.com' },
      { name: 'Hank \ud800Buyer', user_email: 'hank\u0000@globex.com' },
      { name: '\u0000', user_email: 'ivy@globex.com' },
    ]);

    await sendEvent(url, SECRET, recordingCompletedEvent({ uuid: ZOOM_UUIDS.plain }));

    const [sent] = await momentum.waitFor(1, 15_000);
    expect(meetingOf(sent).attendees).toEqual([
      { email: 'gail@globex.com', name: 'Gail Buyer', isInternal: false },
      { email: 'hank@globex.com', name: 'Hank \ufffdBuyer', isInternal: false },
      { email: 'ivy@globex.com', isInternal: false },
    ]);
    await waitSettled(databaseUrl);
    expect(await storedEvents(databaseUrl)).toMatchObject([{ source: 'zoom', state: 'mapped', state_reason: null }]);
    const jobs = await expectSettled(databaseUrl);
    expect(jobs.map((job) => [job.kind, job.state])).toEqual([
      ['map-event', 'succeeded'],
      ['import', 'succeeded'],
    ]);
  });

  it.each([
    ['..', '/v2/past_meetings/%2E%2E/participants'],
    ['.', '/v2/past_meetings/%2E/participants'],
  ])('when the meeting uuid is %j, then the participants request names that meeting (%s) and the import carries its attendees', async (uuid, rawPath) => {
    const { momentum, zoom, url, databaseUrl } = await startZoomBridge(engine, cleanups);
    zoom.setParticipants(uuid, [{ name: 'Gail Buyer', user_email: 'gail@globex.com' }]);

    await sendEvent(url, SECRET, recordingCompletedEvent({ uuid }));

    const [sent] = await momentum.waitFor(1, 15_000);
    expect(zoom.requestsOf('participants').map((call) => [call.rawPath, call.meetingUuid, call.status])).toEqual([[rawPath, uuid, 200]]);
    expect(meetingOf(sent)).toMatchObject({ id: uuid, attendees: [{ email: 'gail@globex.com', name: 'Gail Buyer', isInternal: false }] });
    await waitSettled(databaseUrl);
    await expectSettled(databaseUrl);
  });

  it(`when Zoom lists 15 000 participants, then the import carries the first ${MAX_ATTENDEES} and the delivery says the attendees were truncated`, async () => {
    // Arrange: Zoom's largest page, so the 15 000 come in 50 pages.
    const { momentum, zoom, url, bridge, databaseUrl } = await startZoomBridge(engine, cleanups, { pageSize: 300 });
    const everyone = Array.from({ length: 15_000 }, (_, index) => ({ name: `Guest ${index}`, user_email: `guest${index}@globex.com` }));
    zoom.setParticipants(ZOOM_UUIDS.plain, everyone);

    // Act
    await sendEvent(url, SECRET, recordingCompletedEvent({ uuid: ZOOM_UUIDS.plain }));

    // Assert: forwarded bounded, in Zoom's order
    const [sent] = await momentum.waitFor(1, 30_000);
    const attendees = meetingOf(sent).attendees as Array<{ email: string }>;
    expect(attendees).toHaveLength(MAX_ATTENDEES);
    expect(attendees.map((attendee) => attendee.email)).toEqual(everyone.slice(0, MAX_ATTENDEES).map((person) => person.user_email));
    await waitSettled(databaseUrl, 30_000);
    // The truncation is on record: on the stored event, so the delivery's page shows it.
    const note = `attendees truncated: Zoom listed 15000 participants with an email address; the import carries the first ${MAX_ATTENDEES}`;
    expect(await storedEvents(databaseUrl)).toMatchObject([{ source: 'zoom', state: 'mapped', state_reason: note }]);
    const importJob = (await storedJobs(databaseUrl)).find((job) => job.kind === 'import');
    const detail = await request(bridge.url)
      .get(`/admin/deliveries/${String(importJob?.id)}`)
      .set('Authorization', `Bearer ${ADMIN_KEY}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ delivery: { kind: 'import', state: 'succeeded' }, event: { source: 'zoom', state: 'mapped', stateReason: note } });
    await expectSettled(databaseUrl);
    expect(importsAt(momentum)).toHaveLength(1);
  });

  it('when Zoom has more pages than the bridge reads (50), then the import carries what was read and the event says more were listed', async () => {
    // The fake's default page holds 2 participants: 50 pages are 100 of the 120.
    const { momentum, zoom, url, databaseUrl } = await startZoomBridge(engine, cleanups);
    zoom.setParticipants(
      ZOOM_UUIDS.plain,
      Array.from({ length: 120 }, (_, index) => ({ name: `Guest ${index}`, user_email: `guest${index}@globex.com` })),
    );

    await sendEvent(url, SECRET, recordingCompletedEvent({ uuid: ZOOM_UUIDS.plain }));

    const [sent] = await momentum.waitFor(1, 30_000);
    expect(meetingOf(sent).attendees).toHaveLength(100);
    expect(zoom.requestsOf('participants')).toHaveLength(50);
    await waitSettled(databaseUrl, 30_000);
    expect(await storedEvents(databaseUrl)).toMatchObject([
      { state: 'mapped', state_reason: 'attendees truncated: Zoom listed more than 100 participants with an email address; the import carries the first 100' },
    ]);
    await expectSettled(databaseUrl);
  });

  it(`when Zoom lists exactly ${MAX_ATTENDEES} participants with an email (and rejoins), then all are forwarded and nothing is said truncated`, async () => {
    const { momentum, zoom, url, databaseUrl } = await startZoomBridge(engine, cleanups, { pageSize: 300 });
    const everyone = Array.from({ length: MAX_ATTENDEES }, (_, index) => ({ name: `Guest ${index}`, user_email: `guest${index}@globex.com` }));
    // Rejoins and guests without an email are not attendees: they do not count towards the bound.
    zoom.setParticipants(ZOOM_UUIDS.plain, [...everyone, ...everyone.slice(0, 50), { name: 'Phone guest' }]);

    await sendEvent(url, SECRET, recordingCompletedEvent({ uuid: ZOOM_UUIDS.plain }));

    const [sent] = await momentum.waitFor(1, 30_000);
    expect(meetingOf(sent).attendees).toHaveLength(MAX_ATTENDEES);
    await waitSettled(databaseUrl, 30_000);
    expect(await storedEvents(databaseUrl)).toMatchObject([{ state: 'mapped', state_reason: null }]);
    await expectSettled(databaseUrl);
  });
  it('when the participants API answers 429 with a fractional Retry-After, then the mapping job waits that long before it asks again', async () => {
    const { momentum, zoom, url, databaseUrl } = await startZoomBridge(engine, cleanups);
    zoom.setParticipants(ZOOM_UUIDS.plain, [{ name: 'Gail Buyer', user_email: 'gail@globex.com' }]);
    zoom.fail('participants', 429, { times: 1, headers: { 'retry-after': '1.25' } });

    await sendEvent(url, SECRET, recordingCompletedEvent({ uuid: ZOOM_UUIDS.plain }));

    await momentum.waitFor(1, 15_000);
    const [limited, answered] = zoom.requestsOf('participants');
    expect([limited?.status, answered?.status]).toEqual([429, 200]);
    // The schedule alone would retry after 100 ms; Zoom asked for 1.25 s.
    expect(answered!.at - limited!.at).toBeGreaterThanOrEqual(1_250);
    await waitSettled(databaseUrl);
    await expectSettled(databaseUrl, { retriedKinds: ['map-event'] });
  });
});
