import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { postCalendarEvent, WEBHOOK_SECRET } from '../calendar/support/signed-events.ts';
import { type FakeMomentum, startFakeMomentum } from '../fakes/fake-momentum.ts';
import { expectedEncryptedToken, otherEvent, recordingCompletedEvent, sendEvent, startFakeZoom, urlValidationEvent, ZOOM_UUIDS } from '../fakes/fake-zoom.ts';
import { ORG_ID, outboundMessage } from '../salesforce/support/outbound-message-builder.ts';
import { postOutboundMessage } from '../salesforce/support/post-outbound-message.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { startTestBridge, type TestBridge } from '../support/test-bridge.ts';
import { waitFor } from '../support/wait-for.ts';

/*
 * Recordings become imports, through the real startBridge wiring: Zoom cloud recordings (a
 * loopback fake of Zoom's webhook sender, OAuth and participants API), recording records in
 * Salesforce, and recordings posted to the signed route; a fake Momentum receives the imports.
 */

const SECRET = 'zoom-secret-token-0001';
const ZOOM_APP = { accountId: 'D8cJuqWVQ623CI4Q8yQK0Q', clientId: 'zoom-client', clientSecret: 'zoom-client-secret' };
const cleanups = cleanupAfterEach();

function mappingFile(rules: unknown): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'mapping-'));
  const file = path.join(dir, 'mapping.json');
  writeFileSync(file, JSON.stringify(rules));
  return file;
}

async function setup(env: Record<string, string> = {}, options: { zoomApi?: boolean } = {}) {
  const momentum = await startFakeMomentum();
  const zoom = await startFakeZoom(ZOOM_APP);
  cleanups.push(momentum.close, zoom.close);
  const bridge = await startTestBridge({
    env: {
      MOMENTUM_API_BASE_URL: momentum.url,
      MOMENTUM_RECEIVER_URL: momentum.url,
      MOMENTUM_API_KEY: 'mk-test-key',
      MOMENTUM_RATE_LIMIT: 'off',
      ZOOM_WEBHOOK_SECRET_TOKENS: SECRET,
      ...(options.zoomApi === false
        ? {}
        : {
            ZOOM_ACCOUNT_ID: ZOOM_APP.accountId,
            ZOOM_CLIENT_ID: ZOOM_APP.clientId,
            ZOOM_CLIENT_SECRET: ZOOM_APP.clientSecret,
            ZOOM_API_URL: zoom.apiUrl,
            ZOOM_OAUTH_URL: zoom.oauthUrl,
          }),
      INTERNAL_EMAIL_DOMAINS: 'example.com',
      CALENDAR_WEBHOOK_SECRETS: WEBHOOK_SECRET,
      SALESFORCE_ORG_IDS: ORG_ID,
      RETRY_SCHEDULE: '100ms,200ms',
      ...env,
    },
  });
  cleanups.push(bridge.stop);
  return { momentum, zoom, bridge, url: `${bridge.url}/recordings/zoom/events` };
}

const importsAt = (momentum: FakeMomentum) => momentum.requests.filter((request) => request.path === '/user-provided-meeting');
const storedCount = async (bridge: TestBridge) => (await (await bridge.store()).listEvents({ limit: 100 })).length;

describe('POST /recordings/zoom/events through startBridge', () => {
  it('when Zoom validates the endpoint, then it gets the plain token and its HMAC with the secret token', async () => {
    const { url } = await setup();

    const answer = await sendEvent(url, SECRET, urlValidationEvent('qgg8vlvZRS6UYooatFL8Aw'));

    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ plainToken: 'qgg8vlvZRS6UYooatFL8Aw', encryptedToken: expectedEncryptedToken(SECRET, 'qgg8vlvZRS6UYooatFL8Aw') });
  });

  it('when the secret token is being rotated, then a validation signed with either token is answered with that token', async () => {
    const { url } = await setup({ ZOOM_WEBHOOK_SECRET_TOKENS: `old-token-0001,${SECRET}` });

    const answer = await sendEvent(url, SECRET, urlValidationEvent('plain-1'));

    expect(JSON.parse(answer.body)).toEqual({ plainToken: 'plain-1', encryptedToken: expectedEncryptedToken(SECRET, 'plain-1') });
  });

  it('when a signed recording.completed arrives, then it is acked at once and Momentum receives the import with the participants as attendees', async () => {
    // Arrange
    const { momentum, zoom, url } = await setup();
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
    expect(zoom.requestsOf('participants').map((call) => call.status)).toEqual([200, 200]);
  });

  it('when Zoom retries the same recording, then the retry is acked and nothing new is stored or imported', async () => {
    const { momentum, bridge, url } = await setup();
    const event = recordingCompletedEvent({ uuid: ZOOM_UUIDS.plain });

    const first = await sendEvent(url, SECRET, event);
    await momentum.waitFor(1, 15_000);
    const retry = await sendEvent(url, SECRET, { ...event, event_ts: event.event_ts + 300_000 });
    await new Promise((resolve) => setTimeout(resolve, 500));

    expect([first.status, retry.status]).toEqual([200, 200]);
    expect(JSON.parse(retry.body)).toEqual({ received: true, duplicate: true });
    expect(await storedCount(bridge)).toBe(1);
    expect(importsAt(momentum)).toHaveLength(1);
  });

  it('when a request is forged, stale or unsigned, then it is refused with 401 and nothing is stored', async () => {
    const { momentum, bridge, url } = await setup();
    const event = recordingCompletedEvent();

    const answers = [
      await sendEvent(url, 'not-the-secret-token', event),
      await sendEvent(url, SECRET, event, { timestamp: Math.floor(Date.now() / 1000) - 600 }),
      await sendEvent(url, SECRET, event, { omitSignature: true }),
    ];

    expect(answers.map((answer) => answer.status)).toEqual([401, 401, 401]);
    expect(answers.map((answer) => (JSON.parse(answer.body) as { error: { code: string } }).error.code)).toEqual(Array(3).fill('invalid_signature'));
    expect(await storedCount(bridge)).toBe(0);
    expect(momentum.requests).toHaveLength(0);
  });

  it('when Zoom has no participants for the meeting (404) or its API is not configured, then the recording is imported without attendees', async () => {
    const withApi = await setup();
    withApi.zoom.forgetMeeting(ZOOM_UUIDS.plain);
    await sendEvent(withApi.url, SECRET, recordingCompletedEvent({ uuid: ZOOM_UUIDS.plain }));
    const [first] = await withApi.momentum.waitFor(1, 15_000);

    const withoutApi = await setup({}, { zoomApi: false });
    await sendEvent(withoutApi.url, SECRET, recordingCompletedEvent({ uuid: ZOOM_UUIDS.doubleSlash }));
    const [second] = await withoutApi.momentum.waitFor(1, 15_000);

    expect((first?.body as { meeting: Record<string, unknown> }).meeting.attendees).toBeUndefined();
    expect((second?.body as { meeting: Record<string, unknown> }).meeting).toMatchObject({ id: ZOOM_UUIDS.doubleSlash });
    expect((second?.body as { meeting: Record<string, unknown> }).meeting.attendees).toBeUndefined();
    expect(withoutApi.zoom.requests).toHaveLength(0);
  });

  it("when Zoom's API fails for a moment (503), then the mapping is retried and the import carries the attendees", async () => {
    const { momentum, zoom, url } = await setup();
    zoom.setParticipants(ZOOM_UUIDS.plain, [{ name: 'Gail Buyer', user_email: 'gail@globex.com' }]);
    zoom.fail('participants', 503, { times: 1 });

    await sendEvent(url, SECRET, recordingCompletedEvent({ uuid: ZOOM_UUIDS.plain }));

    const [request] = await momentum.waitFor(1, 15_000);
    expect((request?.body as { meeting: { attendees: unknown[] } }).meeting.attendees).toEqual([
      { email: 'gail@globex.com', name: 'Gail Buyer', isInternal: false },
    ]);
  });

  it('when another event type arrives, then it is acked and skipped with a reason', async () => {
    const { momentum, bridge, url } = await setup();

    const answer = await sendEvent(url, SECRET, otherEvent('meeting.started'));

    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ ignored: 'meeting.started' });
    expect(await storedCount(bridge)).toBe(0);
    expect(momentum.requests).toHaveLength(0);
  });

  it('when the mapping file sets processImportedMeeting for Zoom and requires a CRM match, then imports follow it per source', async () => {
    const file = mappingFile({ recordings: { zoom: { processImportedMeeting: false } } });
    const { momentum, url } = await setup({ MAPPING_FILE: file });

    await sendEvent(url, SECRET, recordingCompletedEvent({ uuid: ZOOM_UUIDS.plain }));

    const [request] = await momentum.waitFor(1, 15_000);
    expect(request?.body).toMatchObject({ processImportedMeeting: false });

    const strict = await setup({ MAPPING_FILE: mappingFile({ recordings: { requireCrmMatch: true } }) });
    await sendEvent(strict.url, SECRET, recordingCompletedEvent({ uuid: ZOOM_UUIDS.doubleSlash }));
    const store = await strict.bridge.store();
    await waitFor('the recording to be mapped', async () => (await store.listEvents({ limit: 10 }))[0]?.state === 'skipped');
    expect((await store.listEvents({ limit: 10 }))[0]?.stateReason).toMatch(/^no CRM match and recordings.requireCrmMatch is set/);
    expect(strict.momentum.requests).toHaveLength(0);
  });

  it('when ZOOM_WEBHOOK_SECRET_TOKENS is empty, then the route answers 503 and stores nothing', async () => {
    const { bridge, url } = await setup({ ZOOM_WEBHOOK_SECRET_TOKENS: '' });

    const answer = await sendEvent(url, SECRET, recordingCompletedEvent());

    expect(answer.status).toBe(503);
    expect(await storedCount(bridge)).toBe(0);
  });
});

describe('recording records in Salesforce and signed recording events', () => {
  it('when an Outbound Message carries a Gong call record mapped with action import, then Momentum receives the import with its ids and attendees', async () => {
    const file = mappingFile({
      sObjects: {
        Gong__Gong_Call__c: {
          action: 'import',
          meetingIdField: 'Gong__Call_ID__c',
          titleField: 'Gong__Title__c',
          startTimeField: 'Gong__Call_Start__c',
          durationSecondsField: 'Gong__Call_Duration_sec__c',
          hostEmailField: 'Gong__Primary_User_Email__c',
          recordingUrlField: 'Gong__Call_URL__c',
          attendeeEmailFields: ['Gong__Participants_Emails__c'],
          accountIdField: 'Gong__Primary_Account__c',
          opportunityIdField: 'Gong__Primary_Opportunity__c',
          processImportedMeeting: false,
        },
      },
    });
    const { momentum, bridge } = await setup({ MAPPING_FILE: file });
    const xml = outboundMessage({
      notifications: [
        {
          id: '04l8d0000001GonAAE',
          type: 'sf:Gong__Gong_Call__c',
          fields: {
            Id: 'a0B8d000001GongEAC',
            Gong__Call_ID__c: '8812345678901234567',
            Gong__Title__c: 'Globex | discovery',
            Gong__Call_Start__c: '2026-03-02T16:00:00.000Z',
            Gong__Call_Duration_sec__c: '1800.0',
            Gong__Primary_User_Email__c: 'ana.rep@example.com',
            Gong__Call_URL__c: 'https://app.gong.io/call?id=8812345678901234567',
            Gong__Participants_Emails__c: 'ana.rep@example.com; gail@globex.com',
            Gong__Primary_Account__c: '0018d0000101XyZ',
            Gong__Primary_Opportunity__c: '0068d0000101XyZAAU',
          },
        },
      ],
    });

    const answer = await postOutboundMessage(bridge.url, xml);

    expect(answer.status).toBe(200);
    const [request] = await momentum.waitFor(1, 15_000);
    expect(request?.path).toBe('/user-provided-meeting');
    expect(request?.body).toEqual({
      meeting: {
        id: '8812345678901234567',
        title: 'Globex | discovery',
        startTime: '2026-03-02T16:00:00.000Z',
        endTime: '2026-03-02T16:30:00.000Z',
        host: { email: 'ana.rep@example.com' },
        recordingUrl: 'https://app.gong.io/call?id=8812345678901234567',
        attendees: [
          { email: 'ana.rep@example.com', isInternal: true },
          { email: 'gail@globex.com', isInternal: false },
        ],
        salesforceAccountId: '0018d0000101XyZAAU',
        salesforceOpportunityId: '0068d0000101XyZAAU',
      },
      processImportedMeeting: false,
    });
  });

  it('when a recording is posted to the signed route, then it is imported with its explicit ids, and once imported it is not imported again', async () => {
    const { momentum, bridge } = await setup();
    // Two states of one recording (the second ends a minute later): the second is not imported.
    const body = (end: string) =>
      JSON.stringify({
        kind: 'recording',
        version: 1,
        id: 'rec-42',
        recordingUrl: 'https://recorder.example.net/r/42',
        callUrl: 'https://meet.example.net/j/42',
        title: 'Globex follow-up',
        start: '2026-03-03T10:00:00Z',
        end,
        host: { email: 'ana.rep@example.com', name: 'Ana Rep' },
        attendees: [{ email: 'gail@globex.com', name: 'Gail Buyer' }],
        salesforce: { opportunityId: '0068d0000101XyZ' },
      });

    const first = await postCalendarEvent(bridge.url, body('2026-03-03T10:25:00Z'), { id: 'msg_rec_1' });
    await momentum.waitFor(1, 15_000);
    const second = await postCalendarEvent(bridge.url, body('2026-03-03T10:26:00Z'), { id: 'msg_rec_2' });
    const store = await bridge.store();
    await waitFor('the second import to end', async () => {
      const jobs = await store.listJobs({ kinds: ['import'], limit: 10 });
      return jobs.length === 2 && jobs.every((job) => job.state !== 'pending' && job.state !== 'running');
    });

    expect([first.status, second.status]).toEqual([202, 202]);
    expect(importsAt(momentum)).toHaveLength(1);
    expect(importsAt(momentum)[0]?.body).toEqual({
      meeting: {
        id: 'rec-42',
        title: 'Globex follow-up',
        startTime: '2026-03-03T10:00:00Z',
        endTime: '2026-03-03T10:25:00Z',
        host: { email: 'ana.rep@example.com', name: 'Ana Rep' },
        recordingUrl: 'https://recorder.example.net/r/42',
        callUrl: 'https://meet.example.net/j/42',
        attendees: [{ email: 'gail@globex.com', name: 'Gail Buyer', isInternal: false }],
        salesforceOpportunityId: '0068d0000101XyZAAU',
      },
      processImportedMeeting: true,
    });
    const jobs = await store.listJobs({ kinds: ['import'], limit: 10 });
    expect(jobs.map((job) => [job.state, job.lastError])).toContainEqual(['skipped', 'already imported']);
  });
});
