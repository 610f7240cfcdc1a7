import { generateKeyPairSync } from 'node:crypto';

import { afterEach, describe, expect, it } from 'vitest';

import { ConfigError } from '../../src/core/config.ts';
import { createCalendarClient } from '../../src/google/calendar-client.ts';
import { GoogleApiError } from '../../src/google/google-api-error.ts';
import { CALENDAR_SCOPE, createGoogleAuth, loadServiceAccountKey } from '../../src/google/service-account.ts';
import { type GoogleSetup, googleSetup, meetingEvent } from './support/google-setup.ts';
import { TEST_SERVICE_ACCOUNT, testServiceAccountKey } from './support/service-account-key.ts';

const ANA = 'ana.rep@example.com';
const BO = 'bo.rep@example.com';

let setup: GoogleSetup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});
const start = async () => (setup = await googleSetup());

async function failureOf(work: Promise<unknown>): Promise<GoogleApiError> {
  const error = await work.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof GoogleApiError)) throw new Error(`expected a GoogleApiError, got ${String(error)}`);
  return error;
}

describe('Google calendar client', () => {
  it('when calls act for two calendar owners, then each gets its own delegated token once, signed by the service account', async () => {
    const g = await start();
    const window = { timeMin: new Date(Date.now() - 86_400_000).toISOString(), timeMax: new Date(Date.now() + 86_400_000).toISOString() };

    await g.client.listEvents(ANA, window);
    await g.client.listEvents(ANA, window);
    await g.client.listEvents(BO, window);

    expect(g.google.tokensIssued).toEqual([
      { subject: ANA, scope: CALENDAR_SCOPE },
      { subject: BO, scope: CALENDAR_SCOPE },
    ]);
    expect(g.google.requestsOf('list').map((request) => request.subject)).toEqual([ANA, ANA, BO]);
  });

  it('when a channel is watched and stopped, then Google gets the documented bodies', async () => {
    const g = await start();

    const answer = await g.client.watch(ANA, {
      id: 'bridge-1',
      address: 'https://bridge.example.com/calendar/google/notifications',
      token: 'tok',
      ttlSeconds: 3600,
    });
    await g.client.stop(ANA, { id: 'bridge-1', resourceId: answer.resourceId });

    expect(g.google.requestsOf('watch')[0]).toMatchObject({
      path: '/calendar/v3/calendars/ana.rep%40example.com/events/watch',
      body: { id: 'bridge-1', type: 'web_hook', address: 'https://bridge.example.com/calendar/google/notifications', token: 'tok', params: { ttl: '3600' } },
    });
    expect(answer.expiration).toBeGreaterThan(Date.now() + 3_500_000);
    expect(g.google.requestsOf('stop')[0]?.body).toEqual({ id: 'bridge-1', resourceId: answer.resourceId });
    expect(g.google.channels.get('bridge-1')?.stopped).toBe(true);
  });

  it('when listing, then single events are asked for and the sync token or window is sent', async () => {
    const g = await start();
    g.google.upsertEvent(ANA, meetingEvent('e1', 2));

    const page = await g.client.listEvents(ANA, { timeMin: '2026-01-01T00:00:00.000Z', timeMax: '2030-01-01T00:00:00.000Z' });
    await g.client.listEvents(ANA, { syncToken: page.nextSyncToken! });

    const [full, incremental] = g.google.requestsOf('list');
    expect(full?.query).toMatchObject({ singleEvents: 'true', timeMin: '2026-01-01T00:00:00.000Z', timeMax: '2030-01-01T00:00:00.000Z' });
    expect(full?.query.syncToken).toBeUndefined();
    expect(incremental?.query).toMatchObject({ singleEvents: 'true', syncToken: page.nextSyncToken });
    expect(incremental?.query.timeMin).toBeUndefined();
  });

  it('when Google answers errors, then each is classified for the sync job', async () => {
    const g = await start();
    const incremental = () => g.client.listEvents(ANA, { syncToken: 'stale' });

    expect(await failureOf(incremental())).toMatchObject({ kind: 'sync_token_invalid', status: 410 });
    g.google.fail('list', 429, { headers: { 'retry-after': '7' } });
    expect(await failureOf(incremental())).toMatchObject({ kind: 'retryable', status: 429, retryAfterMs: 7000 });
    g.google.fail('list', 429, { headers: { 'retry-after': '2.128' } });
    expect(await failureOf(incremental())).toMatchObject({ kind: 'retryable', status: 429, retryAfterMs: 2128 });
    g.google.fail('list', 503);
    expect(await failureOf(incremental())).toMatchObject({ kind: 'retryable', status: 503 });
    g.google.fail('list', 403, { body: { error: { code: 403, message: 'Rate Limit Exceeded', errors: [{ reason: 'userRateLimitExceeded' }] } } });
    expect(await failureOf(incremental())).toMatchObject({ kind: 'retryable', status: 403 });
    g.google.fail('list', 400);
    expect(await failureOf(incremental())).toMatchObject({ kind: 'final', status: 400 });
    g.google.fail('stop', 404);
    expect(await failureOf(g.client.stop(ANA, { id: 'gone', resourceId: 'r' }))).toMatchObject({ kind: 'not_found' });
  });

  it('when the service account key is not the one Google knows, then the call fails for good without reaching the API', async () => {
    const g = await start();
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const wrongKey = JSON.stringify({
      ...JSON.parse(testServiceAccountKey(g.google.tokenUrl)),
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    });
    const client = createCalendarClient({ baseUrl: g.google.calendarApiUrl, auth: createGoogleAuth(loadServiceAccountKey({ json: wrongKey })!) });

    const error = await failureOf(client.listEvents(ANA, { syncToken: 'x' }));
    await client.close();

    expect(error).toMatchObject({ kind: 'final', status: 400 });
    expect(g.google.requestsOf('list')).toEqual([]);
  });

  it('when the key settings are broken, then start-up fails with a ConfigError that never quotes the key', () => {
    const key = testServiceAccountKey('https://oauth2.googleapis.com/token');

    expect(() => loadServiceAccountKey({ json: '{"private_key": "-----BEGIN PRIVATE KEY-----secret' })).toThrow(/^(?!.*secret).*not valid JSON/s);
    expect(() => loadServiceAccountKey({ json: JSON.stringify({ private_key: 'x' }) })).toThrow(ConfigError);
    expect(() => loadServiceAccountKey({ json: key, file: '/tmp/key.json' })).toThrow(/not both/);
    expect(() => loadServiceAccountKey({ file: '/nonexistent/key.json' })).toThrow(/cannot read/);
    expect(loadServiceAccountKey({})).toBeUndefined();
    expect(loadServiceAccountKey({ json: key })?.client_email).toBe(TEST_SERVICE_ACCOUNT);
  });
});
