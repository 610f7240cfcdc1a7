import { describe, expect, it } from 'vitest';

import { calendarEventsRouter } from '../../routes/calendar-events.ts';
import { listenRouters } from '../support/app-harness.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { captureLogs } from '../support/log-capture.ts';
import { openRealStore } from '../support/real-store.ts';
import { storedCounts, storedEvents, storedJobs } from '../support/stored-rows.ts';
import { ROTATED_SECRET, signedHeaders, TEAMS_MEETING, WEBHOOK_SECRET } from './support/signed-events.ts';

const SECRET = WEBHOOK_SECRET;
const ROTATED = ROTATED_SECRET;
const MAX_BODY = 4096;

const body = { ...TEAMS_MEETING, description: 'Follow-up', salesforce: { opportunityId: '0065w000023STAm' } };

const cleanups = cleanupAfterEach();

async function harness(secrets = [SECRET, ROTATED]) {
  const { store, file, close: cleanup } = await openRealStore();
  const logs = captureLogs({ secrets });
  const server = await listenRouters(
    [calendarEventsRouter({ config: { CALENDAR_WEBHOOK_SECRETS: secrets, CALENDAR_MAX_BODY: MAX_BODY }, store, logger: logs.logger })],
    logs.logger,
  );
  cleanups.push(cleanup, server.close);
  const send = (raw: string, options: { id?: string; timestamp?: number; secret?: string; signature?: string; contentType?: string } = {}) => {
    const headers = signedHeaders(raw, {
      id: options.id ?? 'msg_2f8c',
      ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp }),
      secret: options.secret ?? SECRET,
    });
    return fetch(`${server.url}/calendar/events`, {
      method: 'POST',
      headers: {
        'content-type': options.contentType ?? 'application/json',
        ...headers,
        ...(options.signature === undefined ? {} : { 'webhook-signature': options.signature }),
      },
      body: raw,
    });
  };
  return { file, send, logs };
}

describe('POST /calendar/events', () => {
  it('when a correctly signed event arrives, then it is stored with its mapping job and 202 is answered', async () => {
    const h = await harness();

    const response = await h.send(JSON.stringify(body));

    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ status: 'accepted', webhookId: 'msg_2f8c', eventId: 1 });
    const [event] = storedEvents(h.file);
    expect(event).toMatchObject({ source: 'calendar', senderId: 'msg_2f8c', dedupeKey: 'calendar:msg_2f8c', state: 'received' });
    expect(event?.payload).toMatchObject({
      origin: 'calendar',
      sourceType: 'MS_TEAMS',
      eventId: body.id,
      explicitIds: { opportunityId: '0065w000023STAmAAO' },
    });
    expect(storedJobs(h.file)).toMatchObject([{ kind: 'map-event', payload: { eventId: 1 }, eventId: 1, state: 'pending' }]);
  });

  it('when it is signed with the second (rotated) secret, then it is accepted', async () => {
    const h = await harness();

    expect((await h.send(JSON.stringify(body), { secret: ROTATED })).status).toBe(202);
  });

  it('when the same webhook-id is delivered again, then it is acknowledged with 200 and not stored again', async () => {
    const h = await harness();
    await h.send(JSON.stringify(body));

    const replay = await h.send(JSON.stringify(body));

    expect(replay.status).toBe(200);
    expect(await replay.json()).toEqual({ status: 'duplicate', webhookId: 'msg_2f8c' });
    expect(storedCounts(h.file)).toMatchObject({ events: 1, jobs: 1 });
  });

  it('when the signature is forged, then 401 and nothing is stored', async () => {
    const h = await harness();

    const forged = await h.send(JSON.stringify(body), { secret: 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
    const tampered = await h.send(JSON.stringify({ ...body, title: 'changed' }), {
      signature: signedHeaders(JSON.stringify(body), { id: 'msg_2f8c' })['webhook-signature'],
    });

    expect([forged.status, tampered.status]).toEqual([401, 401]);
    expect(((await forged.json()) as { error: { code: string } }).error.code).toBe('invalid_signature');
    expect(storedCounts(h.file)).toEqual({ messages: 0, events: 0, jobs: 0 });
  });

  it('when the timestamp is older than 5 minutes, then 401 stale_timestamp and nothing is stored', async () => {
    const h = await harness();

    const response = await h.send(JSON.stringify(body), { timestamp: Math.floor(Date.now() / 1000) - 6 * 60 });

    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('stale_timestamp');
    expect(storedCounts(h.file).events).toBe(0);
  });

  it('when the signed body is not JSON, then 400 invalid_json and nothing is stored', async () => {
    const h = await harness();

    const response = await h.send('{"version": 1,');

    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('invalid_json');
    expect(storedCounts(h.file).events).toBe(0);
  });

  it('when the signed body breaks the schema, then 400 lists the zod issues and nothing is stored', async () => {
    const h = await harness();

    const response = await h.send(JSON.stringify({ ...body, version: 2, start: 'tomorrow' }));

    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: {
        code: 'invalid_body',
        details: { issues: expect.arrayContaining([expect.objectContaining({ path: 'version' }), expect.objectContaining({ path: 'start' })]) },
      },
    });
    expect(storedCounts(h.file).events).toBe(0);
  });

  it('when the body is larger than CALENDAR_MAX_BODY, then 413 and nothing is stored', async () => {
    const h = await harness();

    const response = await h.send(JSON.stringify({ ...body, description: 'x'.repeat(MAX_BODY) }));

    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('body_too_large');
    expect(storedCounts(h.file).events).toBe(0);
  });

  it('when the content type is not JSON, then 415', async () => {
    const h = await harness();

    expect((await h.send(JSON.stringify(body), { contentType: 'text/plain' })).status).toBe(415);
  });

  it('when no secrets are configured, then the route answers 503 and stores nothing', async () => {
    const h = await harness([]);

    expect((await h.send(JSON.stringify(body))).status).toBe(503);
    expect(storedCounts(h.file).events).toBe(0);
  });
});
