import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';

import { listenOnLoopback } from '../support/listen-on-loopback.ts';
import {
  expectedEncryptedToken,
  type FakeZoom,
  type FakeZoomOptions,
  otherEvent,
  recordingCompletedEvent,
  sendEvent,
  signZoomRequest,
  startFakeZoom,
  urlValidationEvent,
  ZOOM_UUIDS,
} from './fake-zoom.ts';

/*
 * The fake Zoom is the yardstick of the recording-import tests, so its own behaviour is pinned
 * here against docs/protocols.md §8: webhook signatures and URL validation computed as Zoom does
 * (checked against HMACs computed by hand with `openssl dgst -sha256 -hmac`), Server-to-Server
 * OAuth, participants paging, and the double encoding of uuids that begin with `/` or hold `//`.
 */

const ACCOUNT = 'D8cJuqWVQ623CI4Q8yQK0Q';
const CLIENT = 'Fh2xQbLeTmWz0KqjYpNc7A';
const SECRET = 'q1W2e3R4t5Y6u7I8o9P0aSdFgHjKlZxC';
const WEBHOOK_SECRET = 'zoom-secret-token-123';
const TIMEOUTS = { headersTimeout: 15_000, bodyTimeout: 15_000 };

type Json = Record<string, unknown>;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function fakeZoom(extra: Partial<FakeZoomOptions> = {}): Promise<FakeZoom> {
  const fake = await startFakeZoom({ accountId: ACCOUNT, clientId: CLIENT, clientSecret: SECRET, ...extra });
  cleanups.push(() => fake.close());
  return fake;
}

async function call(url: string, init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string } = {}) {
  const response = await request(url, { method: init.method ?? 'GET', headers: init.headers, body: init.body, ...TIMEOUTS });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, body: (text === '' ? undefined : JSON.parse(text)) as Json };
}

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

async function askToken(fake: FakeZoom, credentials = { id: CLIENT, secret: SECRET }, accountId = ACCOUNT) {
  return call(`${fake.oauthUrl}?grant_type=account_credentials&account_id=${encodeURIComponent(accountId)}`, {
    method: 'POST',
    headers: { authorization: basic(credentials.id, credentials.secret) },
  });
}

async function accessToken(fake: FakeZoom): Promise<string> {
  return String((await askToken(fake)).body.access_token);
}

/** What the bridge must do with a uuid in a path (Zoom's rule); `once` forces single encoding, to show the fake refuses it. */
function encodeUuid(uuid: string, mode: 'rule' | 'once' | 'twice' = 'rule') {
  const twice = mode === 'twice' || (mode === 'rule' && (uuid.startsWith('/') || uuid.includes('//')));
  return twice ? encodeURIComponent(encodeURIComponent(uuid)) : encodeURIComponent(uuid);
}

const participantsOf = (fake: FakeZoom, token: string, pathUuid: string, query = 'page_size=300') =>
  call(`${fake.apiUrl}/past_meetings/${pathUuid}/participants?${query}`, { headers: { authorization: `Bearer ${token}` } });

/** A webhook receiver on loopback, as the bridge would be: it records what arrived and answers URL validation correctly. */
async function receiver() {
  const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ headers: req.headers, body });
      const parsed = JSON.parse(body) as { event?: string; payload?: { plainToken?: string } };
      if (parsed.event !== 'endpoint.url_validation') return void res.writeHead(204).end();
      const plainToken = String(parsed.payload?.plainToken);
      const encryptedToken = createHmac('sha256', WEBHOOK_SECRET).update(plainToken).digest('hex');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ plainToken, encryptedToken }));
    });
  });
  const { url } = await listenOnLoopback(server);
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `${url}/webhooks/zoom`, received };
}

describe('Zoom webhook sender', () => {
  it('when a body is signed, then the headers hold the timestamp and v0= with the HMAC-SHA256 computed by hand', () => {
    // Arrange
    const body = '{"event":"meeting.started","payload":{"account_id":"abc"}}';

    // Act
    const headers = signZoomRequest(WEBHOOK_SECRET, body, 1_700_000_000);

    // Assert
    expect(headers).toEqual({
      'x-zm-request-timestamp': '1700000000',
      'x-zm-signature': 'v0=c42bd68f7cd069228d43333336c3bfd4bb0c94b38902c2fecd5b2a672b5adb8c',
    });
  });

  it('when the URL validation token is encrypted, then it equals the HMAC-SHA256 computed by hand', () => {
    expect(expectedEncryptedToken(WEBHOOK_SECRET, 'qgg8vlvZRS6UYooatFL8Aw')).toBe('bb14734995b1296db328f8a0bf605e48f34f4c9ca4ab1f001ddc76ee33bd9975');
  });

  it('when an event is sent, then the receiver gets the raw JSON with Zoom headers and a signature it can verify over the raw body', async () => {
    // Arrange
    const { url, received } = await receiver();
    const event = recordingCompletedEvent();

    // Act
    const delivery = await sendEvent(url, WEBHOOK_SECRET, event);

    // Assert
    expect(delivery.status).toBe(204);
    expect(delivery.ms).toBeGreaterThan(0);
    expect(received).toHaveLength(1);
    const { headers, body } = received[0]!;
    expect(body).toBe(JSON.stringify(event));
    expect(headers['content-type']).toBe('application/json; charset=utf-8');
    expect(headers['user-agent']).toBe('Zoom Marketplace/1.0a');
    const timestamp = Number(headers['x-zm-request-timestamp']);
    expect(Math.abs(timestamp - Date.now() / 1000)).toBeLessThan(5);
    const expected = Buffer.from(`v0=${createHmac('sha256', WEBHOOK_SECRET).update(`v0:${timestamp}:${body}`).digest('hex')}`);
    expect(timingSafeEqual(Buffer.from(String(headers['x-zm-signature'])), expected)).toBe(true);
  });

  it('when options ask for a raw body, an old timestamp, a wrong signature or none, then exactly that is sent', async () => {
    // Arrange
    const { url, received } = await receiver();
    const event = otherEvent('meeting.started');

    // Act
    await sendEvent(url, WEBHOOK_SECRET, event, { rawBody: '{"event":"meeting.started" }', timestamp: 1_600_000_000 });
    await sendEvent(url, WEBHOOK_SECRET, event, { signature: 'v0=deadbeef' });
    await sendEvent(url, WEBHOOK_SECRET, event, { omitSignature: true });

    // Assert
    expect(received[0]!.body).toBe('{"event":"meeting.started" }');
    expect(received[0]!.headers['x-zm-request-timestamp']).toBe('1600000000');
    expect(received[0]!.headers['x-zm-signature']).toBe(signZoomRequest(WEBHOOK_SECRET, '{"event":"meeting.started" }', 1_600_000_000)['x-zm-signature']);
    expect(received[1]!.headers['x-zm-signature']).toBe('v0=deadbeef');
    expect(received[2]!.headers['x-zm-signature']).toBeUndefined();
    expect(received[2]!.headers['x-zm-request-timestamp']).toBeDefined();
  });

  it('when a URL validation event is sent, then a correct receiver answers the plain token and its encrypted form', async () => {
    // Arrange
    const { url } = await receiver();
    const event = urlValidationEvent();

    // Act
    const delivery = await sendEvent(url, WEBHOOK_SECRET, event);

    // Assert
    expect(event).toEqual({ event: 'endpoint.url_validation', payload: { plainToken: expect.any(String) as string }, event_ts: expect.any(Number) as number });
    expect(delivery.status).toBe(200);
    expect(JSON.parse(delivery.body)).toEqual({
      plainToken: event.payload.plainToken,
      encryptedToken: expectedEncryptedToken(WEBHOOK_SECRET, event.payload.plainToken),
    });
  });

  it('when a recording.completed event is built, then it has the documented shape with a video and an audio file summed in total_size', () => {
    // Act
    const event = recordingCompletedEvent({ uuid: ZOOM_UUIDS.leadingSlash, start_time: '2026-03-02T15:00:00Z', duration: 30 }, { accountId: ACCOUNT });

    // Assert
    const object = event.payload.object;
    expect(event.event).toBe('recording.completed');
    expect(event.event_ts).toBeGreaterThan(1_700_000_000_000);
    expect(event.download_token).toMatch(/^eyJ/);
    expect(event.payload.account_id).toBe(ACCOUNT);
    expect(object).toMatchObject({ uuid: '/ajXp112QmuoKj4854875==', id: expect.any(Number) as number, type: 2, start_time: '2026-03-02T15:00:00Z' });
    expect(object).not.toHaveProperty('password');
    expect(object.recording_files.map((file) => [file.file_type, file.file_extension, file.recording_type, file.status])).toEqual([
      ['MP4', 'MP4', 'shared_screen_with_speaker_view', 'completed'],
      ['M4A', 'M4A', 'audio_only', 'completed'],
    ]);
    expect(object.recording_files[0]).toMatchObject({
      meeting_id: ZOOM_UUIDS.leadingSlash,
      recording_start: '2026-03-02T15:00:00Z',
      recording_end: '2026-03-02T15:30:00Z',
    });
    expect(object.total_size).toBe(object.recording_files[0]!.file_size + object.recording_files[1]!.file_size);
    expect(object.recording_count).toBe(2);
    expect(recordingCompletedEvent({ password: 'xY12ab' }).payload.object.password).toBe('xY12ab');
  });
});

describe('fake Zoom Server-to-Server OAuth', () => {
  it('when the client asks with the right credentials and account, then a bearer token for an hour is issued and recorded', async () => {
    // Arrange
    const fake = await fakeZoom();

    // Act
    const reply = await askToken(fake);

    // Assert
    expect(fake.oauthUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/oauth\/token$/);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      access_token: expect.stringMatching(/^eyJ/) as string,
      token_type: 'bearer',
      expires_in: 3600,
      scope: expect.stringContaining('meeting:read:list_past_participants:admin') as string,
      api_url: fake.url,
    });
    expect(`${String(reply.body.api_url)}/v2`).toBe(fake.apiUrl);
    expect(fake.tokensIssued).toEqual([expect.objectContaining({ accessToken: reply.body.access_token, accountId: ACCOUNT, clientId: CLIENT })]);
    expect(fake.requestsOf('token')[0]).toMatchObject({ method: 'POST', query: { grant_type: 'account_credentials', account_id: ACCOUNT }, status: 200 });
  });

  it('when the client secret is wrong, then 401 invalid_client and no token', async () => {
    const fake = await fakeZoom();

    const reply = await askToken(fake, { id: CLIENT, secret: 'wrong' });

    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ reason: 'Invalid client_id or client_secret', error: 'invalid_client' });
    expect(fake.tokensIssued).toEqual([]);
  });

  it('when the account id is wrong, then 400 invalid_request and no token', async () => {
    const fake = await fakeZoom();

    const reply = await askToken(fake, undefined, 'someone-else');

    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ reason: 'Invalid account_id', error: 'invalid_request' });
    expect(fake.tokensIssued).toEqual([]);
  });

  it('when the token endpoint is scripted to answer 429 once, then the first ask gets it with Retry-After and the second a token', async () => {
    const fake = await fakeZoom();
    fake.fail('token', 429);

    const first = await askToken(fake);
    const second = await askToken(fake);

    expect(first.status).toBe(429);
    expect(first.headers['retry-after']).toBe('1');
    expect(second.status).toBe(200);
    expect(fake.tokensIssued).toHaveLength(1);
  });
});

describe('fake Zoom GET /v2/past_meetings/{uuid}/participants', () => {
  const five = ['Ana', 'Bo', 'Cy', 'Di', 'Ed'].map((name) => ({ name, user_email: `${name.toLowerCase()}@example.com` }));

  it('when a meeting has more participants than a page holds, then next_page_token walks the pages and the last one has an empty token', async () => {
    // Arrange
    const fake = await fakeZoom();
    const token = await accessToken(fake);
    fake.setParticipants(ZOOM_UUIDS.plain, five);

    // Act
    const pages: Json[] = [];
    let next = '';
    do {
      const reply = await participantsOf(fake, token, encodeUuid(ZOOM_UUIDS.plain), `page_size=300&next_page_token=${encodeURIComponent(next)}`);
      expect(reply.status).toBe(200);
      pages.push(reply.body);
      next = String(reply.body.next_page_token);
    } while (next !== '');

    // Assert
    expect(pages).toHaveLength(3);
    expect(pages[0]).toMatchObject({ page_count: 3, page_size: 2, total_records: 5 });
    const people = pages.flatMap((page) => page.participants as Json[]);
    expect(people.map((person) => person.user_email)).toEqual(five.map((person) => person.user_email));
    expect(people[0]).toEqual({
      id: expect.any(String) as string,
      name: 'Ana',
      user_email: 'ana@example.com',
      join_time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) as string,
      leave_time: expect.stringMatching(/Z$/) as string,
      duration: 2400,
      status: 'in_meeting',
    });
    expect(fake.requestsOf('participants').every((item) => item.meetingUuid === ZOOM_UUIDS.plain)).toBe(true);
  });

  it('when a page token is made up, then 400 code 300', async () => {
    const fake = await fakeZoom();
    const token = await accessToken(fake);
    fake.setParticipants(ZOOM_UUIDS.plain, five);

    const reply = await participantsOf(fake, token, encodeUuid(ZOOM_UUIDS.plain), 'page_size=300&next_page_token=made-up');

    expect(reply.status).toBe(400);
    expect(reply.body.code).toBe(300);
  });

  it.each([ZOOM_UUIDS.leadingSlash, ZOOM_UUIDS.doubleSlash])('when the uuid %s is double-encoded, then its participants are answered', async (uuid) => {
    // Arrange
    const fake = await fakeZoom();
    const token = await accessToken(fake);
    fake.setParticipants(uuid, five.slice(0, 1));

    // Act
    const reply = await participantsOf(fake, token, encodeUuid(uuid));

    // Assert
    expect(reply.status).toBe(200);
    expect(reply.body.participants).toEqual([expect.objectContaining({ name: 'Ana' })]);
    expect(fake.requestsOf('participants')[0]).toMatchObject({
      rawPath: `/v2/past_meetings/${encodeURIComponent(encodeURIComponent(uuid))}/participants`,
      meetingUuid: uuid,
    });
  });

  it.each([
    ['single-encoded', ZOOM_UUIDS.leadingSlash, encodeUuid(ZOOM_UUIDS.leadingSlash, 'once')],
    ['single-encoded', ZOOM_UUIDS.doubleSlash, encodeUuid(ZOOM_UUIDS.doubleSlash, 'once')],
    ['not encoded', ZOOM_UUIDS.leadingSlash, ZOOM_UUIDS.leadingSlash],
    ['double-encoded though the rule does not ask for it', ZOOM_UUIDS.plain, encodeUuid(ZOOM_UUIDS.plain, 'twice')],
  ])('when the uuid is %s (%s), then 404 code 3001 as for an unknown meeting', async (_how, uuid, pathUuid) => {
    // Arrange
    const fake = await fakeZoom();
    const token = await accessToken(fake);
    fake.setParticipants(uuid, five);

    // Act
    const reply = await participantsOf(fake, token, pathUuid);

    // Assert
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ code: 3001, message: expect.stringMatching(/^Meeting does not exist: .+\.$/) as string });
    expect(fake.requestsOf('participants')[0]).toMatchObject({ rawPath: `/v2/past_meetings/${pathUuid}/participants`, meetingUuid: undefined });
  });

  it('when the plain uuid is encoded once, then it is found; once forgotten, 404; once a year old, 400 code 12702', async () => {
    // Arrange
    const fake = await fakeZoom();
    const token = await accessToken(fake);
    fake.setParticipants(ZOOM_UUIDS.plain, five);
    const path = encodeUuid(ZOOM_UUIDS.plain);

    // Act
    const found = await participantsOf(fake, token, path);
    fake.forgetMeeting(ZOOM_UUIDS.plain);
    const forgotten = await participantsOf(fake, token, path);
    fake.forgetMeeting(ZOOM_UUIDS.plain, { yearOld: true });
    const old = await participantsOf(fake, token, path);
    const unknown = await participantsOf(fake, token, encodeUuid('zzzzNeverHeldzzzzzzzzz=='));

    // Assert
    expect(path).toBe('4444AAAiAAAAAiAiAiiAii%3D%3D');
    expect(found.status).toBe(200);
    expect(forgotten).toMatchObject({ status: 404, body: { code: 3001, message: 'Meeting does not exist: 4444AAAiAAAAAiAiAiiAii==.' } });
    expect(old).toMatchObject({ status: 400, body: { code: 12702, message: 'Can not access a meeting a year ago.' } });
    expect(unknown).toMatchObject({ status: 404, body: { code: 3001 } });
  });

  it('when the token has expired (by its lifetime or expireTokens), or is missing or unknown, then 401 code 124', async () => {
    // Arrange
    const shortLived = await fakeZoom({ tokenExpiresIn: 0 });
    const fake = await fakeZoom();
    shortLived.setParticipants(ZOOM_UUIDS.plain, five);
    fake.setParticipants(ZOOM_UUIDS.plain, five);
    const path = encodeUuid(ZOOM_UUIDS.plain);
    const issued = await askToken(shortLived);
    const good = await accessToken(fake);

    // Act
    const byLifetime = await participantsOf(shortLived, String(issued.body.access_token), path);
    const before = await participantsOf(fake, good, path);
    fake.expireTokens();
    const afterExpiry = await participantsOf(fake, good, path);
    const unknown = await participantsOf(fake, 'eyJmade.up', path);
    const missing = await call(`${fake.apiUrl}/past_meetings/${path}/participants`);

    // Assert
    expect(issued.body.expires_in).toBe(0);
    expect(byLifetime).toMatchObject({ status: 401, body: { code: 124, message: 'Access token is expired.' } });
    expect(before.status).toBe(200);
    expect(afterExpiry).toMatchObject({ status: 401, body: { code: 124 } });
    expect(unknown).toMatchObject({ status: 401, body: { code: 124, message: 'Invalid access token.' } });
    expect(missing).toMatchObject({ status: 401, body: { code: 124 } });
  });

  it('when the app lacks the participants scope, then 400 code 4711', async () => {
    const fake = await fakeZoom({ scopes: ['meeting:read:meeting:admin'] });
    const token = await accessToken(fake);
    fake.setParticipants(ZOOM_UUIDS.plain, five);

    const reply = await participantsOf(fake, token, encodeUuid(ZOOM_UUIDS.plain));

    expect(reply).toMatchObject({ status: 400, body: { code: 4711 } });
  });

  it('when scripted to answer 429 with Retry-After after one good call, then the second call gets it and the third succeeds', async () => {
    // Arrange
    const fake = await fakeZoom();
    const token = await accessToken(fake);
    fake.setParticipants(ZOOM_UUIDS.plain, five);
    fake.fail('participants', 429, { after: 1, headers: { 'retry-after': '2' } });
    const path = encodeUuid(ZOOM_UUIDS.plain);

    // Act
    const first = await participantsOf(fake, token, path);
    const second = await participantsOf(fake, token, path);
    const third = await participantsOf(fake, token, path);

    // Assert
    expect([first.status, second.status, third.status]).toEqual([200, 429, 200]);
    expect(second.headers['retry-after']).toBe('2');
    expect(second.body).toEqual({ code: 429, message: expect.stringContaining('rate limit') as string });
    expect(fake.requestsOf('participants').map((item) => item.status)).toEqual([200, 429, 200]);
  });

  it('when scripted to answer 503 twice, then two calls get it and the next succeeds', async () => {
    const fake = await fakeZoom();
    const token = await accessToken(fake);
    fake.setParticipants(ZOOM_UUIDS.plain, five);
    fake.fail('participants', 503, { times: 2 });
    const path = encodeUuid(ZOOM_UUIDS.plain);

    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await participantsOf(fake, token, path)).status);

    expect(statuses).toEqual([503, 503, 200]);
  });
});
