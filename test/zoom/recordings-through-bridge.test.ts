import { expect, it } from 'vitest';

import { expectedEncryptedToken, otherEvent, recordingCompletedEvent, sendEvent, urlValidationEvent, ZOOM_UUIDS } from '../fakes/fake-zoom.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { describeEachEngine, expectSettled, queryRows, waitSettled } from '../support/stored-state.ts';
import { importsAt, mappingFile, meetingOf, SECRET, startZoomBridge, storedCounts, storedEvents, storedJobs } from './support/zoom-bridge.ts';

/*
 * Zoom cloud recordings become imports, through the real startBridge wiring on both engines: a
 * loopback fake of Zoom's webhook sender, OAuth and participants API, a fake Momentum receiving
 * the imports, and the stored inbound events and jobs read back from the bridge's database.
 */

const cleanups = cleanupAfterEach();

describeEachEngine('POST /recordings/zoom/events through startBridge', (engine) => {
  it('when Zoom validates the endpoint, then it gets the plain token and its HMAC with the secret token, and nothing is stored', async () => {
    const { url, databaseUrl } = await startZoomBridge(engine, cleanups);

    const answer = await sendEvent(url, SECRET, urlValidationEvent('qgg8vlvZRS6UYooatFL8Aw'));

    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ plainToken: 'qgg8vlvZRS6UYooatFL8Aw', encryptedToken: expectedEncryptedToken(SECRET, 'qgg8vlvZRS6UYooatFL8Aw') });
    expect(await storedCounts(databaseUrl)).toEqual({ messages: 0, events: 0, jobs: 0 });
  });

  it('when the secret token is being rotated, then a validation signed with either token is answered with that token', async () => {
    const { url } = await startZoomBridge(engine, cleanups, { env: { ZOOM_WEBHOOK_SECRET_TOKENS: `old-token-0001,${SECRET}` } });

    const answer = await sendEvent(url, SECRET, urlValidationEvent('plain-1'));

    expect(JSON.parse(answer.body)).toEqual({ plainToken: 'plain-1', encryptedToken: expectedEncryptedToken(SECRET, 'plain-1') });
  });

  it("when the recording's meeting is pinned to an opportunity, then the import carries the pinned opportunity and the match record says who pinned it", async () => {
    // Arrange: nothing in the CRM matches; an operator pinned the meeting.
    const { momentum, bridge, url, databaseUrl } = await startZoomBridge(engine, cleanups);
    const pinned = '0068d0000101PiNAAU';
    await (
      await bridge.store()
    ).matches.setPin({
      meetingKey: `zoom:zoom:${ZOOM_UUIDS.plain}`,
      records: { opportunityId: pinned },
      pinnedBy: 'ops@example.com',
      reason: 'the renewal call',
      pinnedAt: Date.parse('2026-03-01T09:00:00Z'),
    });

    // Act
    const answer = await sendEvent(url, SECRET, recordingCompletedEvent({ uuid: ZOOM_UUIDS.plain, topic: 'Renewal', host_email: 'ana.rep@example.com' }));

    // Assert
    expect(answer.status).toBe(200);
    const [request] = await momentum.waitFor(1, 15_000);
    expect(meetingOf(request)).toMatchObject({ id: ZOOM_UUIDS.plain, salesforceOpportunityId: pinned });
    await waitSettled(databaseUrl);
    const records = await queryRows(databaseUrl, 'SELECT outcome, rule FROM match_records');
    expect(records).toEqual([{ outcome: 'pinned', rule: 'pinned' }]);
    await expectSettled(databaseUrl);
  });

  it('when a signed recording.completed arrives, then it is acked at once, Momentum receives the import with the participants as attendees, and the queue settles', async () => {
    // Arrange
    const { momentum, zoom, url, databaseUrl } = await startZoomBridge(engine, cleanups);
    zoom.setParticipants(ZOOM_UUIDS.leadingSlash, [
      { name: 'Ana Rep', user_email: 'ana.rep@example.com' },
      { name: 'Gail Buyer', user_email: 'gail@globex.com' },
      // Zoom lists a participant again for each time they rejoin.
      { name: 'Gail Buyer', user_email: 'gail@globex.com' },
      { name: 'Phone guest' },
    ]);
    const event = recordingCompletedEvent({
      uuid: ZOOM_UUIDS.leadingSlash,
      topic: 'Globex pricing review',
      host_email: 'ana.rep@example.com',
      start_time: '2026-03-02T16:00:00Z',
      duration: 30,
      share_url: 'https://example.zoom.us/rec/share/abc',
    });

    // Act
    const answer = await sendEvent(url, SECRET, event);

    // Assert
    expect(answer.status).toBe(200);
    expect(answer.ms).toBeLessThan(3_000);
    const [request] = await momentum.waitFor(1, 15_000);
    expect(request?.path).toBe('/user-provided-meeting');
    const endTime = event.payload.object.recording_files
      .map((file) => new Date(file.recording_end).toISOString())
      .sort()
      .at(-1);
    expect(request?.body).toEqual({
      meeting: {
        id: ZOOM_UUIDS.leadingSlash,
        title: 'Globex pricing review',
        startTime: '2026-03-02T16:00:00.000Z',
        endTime,
        host: { email: 'ana.rep@example.com', name: 'Ana Rep' },
        recordingUrl: 'https://example.zoom.us/rec/share/abc',
        attendees: [
          { email: 'ana.rep@example.com', name: 'Ana Rep', isInternal: true },
          { email: 'gail@globex.com', name: 'Gail Buyer', isInternal: false },
        ],
      },
      processImportedMeeting: true,
    });
    // The uuid starting with `/` was double-encoded, so Zoom found the meeting.
    expect(zoom.requestsOf('participants').map((call) => [call.status, call.meetingUuid])).toEqual([
      [200, ZOOM_UUIDS.leadingSlash],
      [200, ZOOM_UUIDS.leadingSlash],
    ]);
    await waitSettled(databaseUrl);
    expect(await storedEvents(databaseUrl)).toMatchObject([
      { source: 'zoom', dedupe_key: `zoom:recording:${ZOOM_UUIDS.leadingSlash}`, state: 'mapped', state_reason: null },
    ]);
    const jobs = await expectSettled(databaseUrl);
    expect(jobs.map((job) => [job.kind, job.state])).toEqual([
      ['map-event', 'succeeded'],
      ['import', 'succeeded'],
    ]);
  });

  it('when Zoom retries the same recording, then the retry is acked and kept on record as a message, and no new event, job or import is made', async () => {
    const { momentum, url, databaseUrl } = await startZoomBridge(engine, cleanups);
    const event = recordingCompletedEvent({ uuid: ZOOM_UUIDS.plain });

    const first = await sendEvent(url, SECRET, event);
    await momentum.waitFor(1, 15_000);
    await waitSettled(databaseUrl);
    const retry = await sendEvent(url, SECRET, { ...event, event_ts: event.event_ts + 300_000 });
    await waitSettled(databaseUrl);

    expect([first.status, retry.status]).toEqual([200, 200]);
    expect(JSON.parse(retry.body)).toEqual({ received: true, duplicate: true });
    expect(await storedCounts(databaseUrl)).toEqual({ messages: 2, events: 1, jobs: 2 });
    expect(importsAt(momentum)).toHaveLength(1);
    await expectSettled(databaseUrl);
  });

  it('when Zoom has no participants for the meeting (404), then the recording is imported without attendees and nothing is retried', async () => {
    const { momentum, zoom, url, databaseUrl } = await startZoomBridge(engine, cleanups);
    zoom.forgetMeeting(ZOOM_UUIDS.plain);

    await sendEvent(url, SECRET, recordingCompletedEvent({ uuid: ZOOM_UUIDS.plain }));

    const [request] = await momentum.waitFor(1, 15_000);
    expect(meetingOf(request).attendees).toBeUndefined();
    expect(zoom.requestsOf('participants').map((call) => call.status)).toEqual([404]);
    await waitSettled(databaseUrl);
    expect(await storedEvents(databaseUrl)).toMatchObject([{ source: 'zoom', state: 'mapped' }]);
    await expectSettled(databaseUrl);
  });

  it("when Zoom's API is not configured, then the recording is imported without attendees and Zoom's API is never called", async () => {
    const { momentum, zoom, url, databaseUrl } = await startZoomBridge(engine, cleanups, { zoomApi: false });

    await sendEvent(url, SECRET, recordingCompletedEvent({ uuid: ZOOM_UUIDS.doubleSlash }));

    const [request] = await momentum.waitFor(1, 15_000);
    expect(meetingOf(request)).toMatchObject({ id: ZOOM_UUIDS.doubleSlash });
    expect(meetingOf(request).attendees).toBeUndefined();
    expect(zoom.requests).toHaveLength(0);
    await waitSettled(databaseUrl);
    await expectSettled(databaseUrl);
  });

  it("when Zoom's API fails for a moment (503), then the mapping is retried, the import carries the attendees, and only the mapping job took two attempts", async () => {
    const { momentum, zoom, url, databaseUrl } = await startZoomBridge(engine, cleanups);
    zoom.setParticipants(ZOOM_UUIDS.plain, [{ name: 'Gail Buyer', user_email: 'gail@globex.com' }]);
    zoom.fail('participants', 503, { times: 1 });

    await sendEvent(url, SECRET, recordingCompletedEvent({ uuid: ZOOM_UUIDS.plain }));

    const [request] = await momentum.waitFor(1, 15_000);
    expect(meetingOf(request).attendees).toEqual([{ email: 'gail@globex.com', name: 'Gail Buyer', isInternal: false }]);
    await waitSettled(databaseUrl);
    const jobs = await expectSettled(databaseUrl, { retriedKinds: ['map-event'] });
    expect(jobs.map((job) => [job.kind, job.state, job.attempts])).toEqual([
      ['map-event', 'succeeded', 2],
      ['import', 'succeeded', 1],
    ]);
  });

  it('when another event type arrives, then it is acked and skipped with a reason, and nothing is stored', async () => {
    const { momentum, url, databaseUrl } = await startZoomBridge(engine, cleanups);

    const answer = await sendEvent(url, SECRET, otherEvent('meeting.started'));

    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ ignored: 'meeting.started' });
    expect(await storedCounts(databaseUrl)).toEqual({ messages: 0, events: 0, jobs: 0 });
    expect(momentum.requests).toHaveLength(0);
  });

  it('when the mapping file sets processImportedMeeting for Zoom, then the import carries it', async () => {
    const file = mappingFile({ recordings: { zoom: { processImportedMeeting: false } } });
    const { momentum, url, databaseUrl } = await startZoomBridge(engine, cleanups, { env: { MAPPING_FILE: file } });

    await sendEvent(url, SECRET, recordingCompletedEvent({ uuid: ZOOM_UUIDS.plain }));

    const [request] = await momentum.waitFor(1, 15_000);
    expect(request?.body).toMatchObject({ processImportedMeeting: false });
    await waitSettled(databaseUrl);
    await expectSettled(databaseUrl);
  });

  it('when the mapping file requires a CRM match and none is found, then the event ends skipped with the reason and nothing is imported', async () => {
    const { momentum, url, databaseUrl } = await startZoomBridge(engine, cleanups, {
      env: { MAPPING_FILE: mappingFile({ recordings: { requireCrmMatch: true } }) },
    });

    await sendEvent(url, SECRET, recordingCompletedEvent({ uuid: ZOOM_UUIDS.doubleSlash }));

    await waitSettled(databaseUrl);
    const [event] = await storedEvents(databaseUrl);
    expect(event).toMatchObject({ source: 'zoom', state: 'skipped' });
    expect(String(event?.state_reason)).toMatch(/^no CRM match and recordings.requireCrmMatch is set/);
    expect((await storedJobs(databaseUrl)).map((job) => [job.kind, job.state])).toEqual([['map-event', 'skipped']]);
    await expectSettled(databaseUrl);
    expect(momentum.requests).toHaveLength(0);
  });
});
