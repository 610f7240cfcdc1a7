import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';

import { request } from 'undici';
import { describe, expect, it } from 'vitest';

import { startFakeMomentum } from '../fakes/fake-momentum.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { waitFor } from '../support/wait-for.ts';
import { ANA, customerMeeting, fakeMicrosoft, type MicrosoftBridge, OPPORTUNITY, removeDir, startMicrosoftBridge } from './support/ms-bridge.ts';

/*
 * Microsoft 365 calendars through the real startBridge wiring, against a loopback fake of Graph
 * and of the Microsoft identity platform (HTTPS, a real MSAL client), and a fake Momentum.
 */

const cleanups = cleanupAfterEach();

async function setup(options: { env?: Record<string, string>; clientCertificatePem?: string } = {}) {
  const microsoft = await fakeMicrosoft(options.clientCertificatePem ? { clientCertificatePem: options.clientCertificatePem } : {});
  const momentum = await startFakeMomentum();
  cleanups.push(microsoft.close, momentum.close);
  const running = await startMicrosoftBridge(microsoft, momentum.url, options.env ? { env: options.env } : {});
  cleanups.push(() => removeDir(running.dir), running.bridge.stop);
  await waitFor('a subscription at Graph', () => [...microsoft.subscriptions.values()].some((subscription) => !subscription.deleted));
  const subscription = [...microsoft.subscriptions.values()].find((item) => !item.deleted)!;
  // The first sync (made when the subscription was) has run once the delta link is stored.
  await waitFor('the first delta sync', () => running.rows(`SELECT delta_link FROM microsoft_mailboxes WHERE delta_link IS NOT NULL`).length === 1);
  // The start's syncs (after subscribing, and the first backstop) have all ended: what follows is the test's own.
  await waitFor('the start-up syncs to end', () => jobsOf(running, 'microsoft-sync').every((job) => job.state === 'succeeded'));
  return { microsoft, momentum, running, subscription };
}

const post = (url: string, body: string, contentType = 'application/json') =>
  request(url, { method: 'POST', body, headers: { 'content-type': contentType } }).then(async (response) => ({
    status: response.statusCode,
    headers: response.headers,
    body: await response.body.text(),
  }));

const jobsOf = (running: MicrosoftBridge, kind: string) => running.rows(`SELECT * FROM jobs WHERE kind = '${kind}' ORDER BY id`);

describe('Microsoft 365 calendars through startBridge', () => {
  it('when a watched mailbox gets a meeting and Graph notifies, then the delta sync finds it and Momentum receives the remap in UTC', async () => {
    // Arrange
    const { microsoft, momentum, running, subscription } = await setup();
    expect(subscription).toMatchObject({
      resource: `/users/${ANA}/events`,
      changeType: 'created,updated,deleted',
      notificationUrl: `http://127.0.0.1:${running.port}/calendar/microsoft/notifications`,
      lifecycleNotificationUrl: `http://127.0.0.1:${running.port}/calendar/microsoft/lifecycle`,
    });
    expect(subscription.clientState).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Graph validated both URLs while creating it.
    expect(microsoft.validations.filter((attempt) => attempt.problem === undefined)).toHaveLength(2);

    // Act
    const event = microsoft.upsertEvent(ANA, customerMeeting());
    const answer = await microsoft.notify(subscription.id, 'created', event.id);

    // Assert
    expect(answer.status).toBe(202);
    expect(answer.ms).toBeLessThan(3_000);
    const [remap] = await momentum.waitFor(1, 15_000);
    expect(remap?.body).toEqual({
      salesforceRecords: { opportunityId: OPPORTUNITY },
      meetingDetails: { title: 'Pricing review with Globex', startTime: '2026-12-02T16:00:00.000Z', hostEmail: ANA },
    });
    // Only Graph's and the login host were called, with a token for Graph's own resource.
    expect(microsoft.tokensIssued[0]).toMatchObject({ credential: 'secret', scope: 'https://graph.microsoft.com/.default' });
  });

  it('when the mapping rules name a microsoftSourceType, then the remap names the source by iCalUId', async () => {
    const mapping = JSON.stringify({ calendar: { microsoftSourceType: 'OUTLOOK_CALENDAR' } });
    const dir = mkdtempSync(path.join(tmpdir(), 'mapping-'));
    const file = path.join(dir, 'mapping.json');
    writeFileSync(file, mapping);
    cleanups.push(() => removeDir(dir));
    const { microsoft, momentum, subscription } = await setup({ env: { MAPPING_FILE: file } });

    const event = microsoft.upsertEvent(ANA, customerMeeting());
    await microsoft.notify(subscription.id, 'updated', event.id);

    const [remap] = await momentum.waitFor(1, 15_000);
    expect(remap?.body).toMatchObject({ source: { type: 'OUTLOOK_CALENDAR', id: event.iCalUId }, salesforceRecords: { opportunityId: OPPORTUNITY } });
  });

  it('when a notification carries the wrong clientState or an unknown subscription, then it is refused with 403 and nothing is stored', async () => {
    const { microsoft, momentum, running, subscription } = await setup();
    const syncsBefore = jobsOf(running, 'microsoft-sync').length;
    const event = microsoft.upsertEvent(ANA, customerMeeting());

    const forged = await microsoft.notify(subscription.id, 'created', event.id, { clientState: 'not-the-secret' });
    const unknown = await post(
      `${running.bridge.url}/calendar/microsoft/notifications`,
      JSON.stringify({ value: [{ subscriptionId: 'f00dfeed-0000-0000-0000-000000000000', clientState: subscription.clientState, changeType: 'created' }] }),
    );

    expect(forged.status).toBe(403);
    expect(JSON.parse(forged.body)).toMatchObject({ error: { code: 'notifications_refused' } });
    expect(unknown.status).toBe(403);
    expect(jobsOf(running, 'microsoft-sync')).toHaveLength(syncsBefore);
    const metrics = await request(`${running.bridge.url}/metrics`).then((response) => response.body.text());
    expect(metrics).toMatch(/bridge_inbound_notifications_total\{source="microsoft",outcome="refused",reason="client_state_mismatch"\} 1/);
    expect(metrics).toMatch(/bridge_inbound_notifications_total\{source="microsoft",outcome="refused",reason="unknown_subscription"\} 1/);
    expect(metrics).toMatch(/bridge_calendar_watches\{source="microsoft",state="live"\} 1/);
    expect(metrics).toMatch(/bridge_calendar_upkeep_total\{source="microsoft",what="created"\} 1/);
    expect(metrics).toMatch(/bridge_calendar_syncs_total\{source="microsoft",outcome="succeeded"\} [1-9]/);
    expect(momentum.requests).toHaveLength(0);
  });

  it('when a batch mixes a good item and a forged one, then the good one is accepted (202) and the forged one only counted', async () => {
    const { microsoft, momentum, subscription } = await setup();
    const event = microsoft.upsertEvent(ANA, customerMeeting());

    const answer = await microsoft.notify(subscription.id, 'created', event.id, {
      extraItems: [{ subscriptionId: subscription.id, clientState: 'forged', changeType: 'created', resource: 'Users/x/Events/y' }],
    });

    expect(answer.status).toBe(202);
    await momentum.waitFor(1, 15_000);
  });

  it('when Graph sends its validation request with a token holding markup, then the decoded token comes back as plain text within the time limit', async () => {
    const { running } = await setup();
    const token = 'Validation: Testing client application reachability <script>alert(1)</script> & more';

    for (const path of ['/calendar/microsoft/notifications', '/calendar/microsoft/lifecycle']) {
      const answer = await post(`${running.bridge.url}${path}?validationToken=${encodeURIComponent(token)}`, '', 'text/plain; charset=utf-8');
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(answer.body).toBe(token);
    }
  });

  it('when a body is malformed, of the wrong type or too large, then it gets a precise 4xx and nothing is stored', async () => {
    const { running } = await setup({ env: { CALENDAR_MAX_BODY: '2048' } });
    const url = `${running.bridge.url}/calendar/microsoft/notifications`;
    const before = jobsOf(running, 'microsoft-sync').length;

    const malformed = await post(url, '{"value": [');
    const wrongType = await post(url, 'value=1', 'application/x-www-form-urlencoded');
    const notGraph = await post(url, JSON.stringify({ value: [] }));
    const tooLarge = await post(url, JSON.stringify({ value: [{ subscriptionId: 'x', clientState: 'y'.repeat(3000) }] }));

    expect([malformed.status, wrongType.status, notGraph.status, tooLarge.status]).toEqual([400, 415, 400, 413]);
    expect(JSON.parse(tooLarge.body)).toMatchObject({ error: { code: 'body_too_large' } });
    expect(jobsOf(running, 'microsoft-sync')).toHaveLength(before);
  });

  it('when Graph sends reauthorizationRequired, then the subscription is renewed once, and not again within 10 minutes', async () => {
    const { microsoft, running, subscription } = await setup();

    const first = await microsoft.lifecycle(subscription.id, 'reauthorizationRequired');
    await waitFor('the renewal', () => microsoft.subscriptions.get(subscription.id)!.renewals === 1);
    const second = await microsoft.lifecycle(subscription.id, 'reauthorizationRequired');
    await waitFor(
      'the second lifecycle job to end',
      () =>
        jobsOf(running, 'microsoft-lifecycle').every((job) => job.state !== 'pending' && job.state !== 'running') &&
        jobsOf(running, 'microsoft-lifecycle').length === 2,
    );

    expect([first.status, second.status]).toEqual([202, 202]);
    expect(microsoft.subscriptions.get(subscription.id)!.renewals).toBe(1);
    expect(jobsOf(running, 'microsoft-lifecycle').map((job) => job.state)).toEqual(['succeeded', 'skipped']);
    expect(running.rows(`SELECT renewed_at FROM graph_subscriptions WHERE id = '${subscription.id}'`)[0]?.renewed_at).not.toBeNull();
  });

  it('when Graph sends subscriptionRemoved, then a new subscription is created and the mailbox is synced', async () => {
    const { microsoft, momentum, running, subscription } = await setup();
    const event = microsoft.upsertEvent(ANA, customerMeeting());

    const answer = await microsoft.lifecycle(subscription.id, 'subscriptionRemoved');

    expect(answer.status).toBe(202);
    await waitFor('a new subscription', () => [...microsoft.subscriptions.values()].some((item) => !item.deleted && item.id !== subscription.id));
    // The sync after recreation finds the meeting changed while no subscription was live.
    const [remap] = await momentum.waitFor(1, 15_000);
    expect(remap?.body).toMatchObject({ meetingDetails: { title: 'Pricing review with Globex' } });
    expect(running.rows(`SELECT id FROM graph_subscriptions WHERE removed_at IS NULL`).map((row) => row.id)).not.toContain(subscription.id);
    expect(event.id).toBeTruthy();
  });

  it('when Graph sends missed, then the mailbox is synced', async () => {
    const { microsoft, momentum, subscription } = await setup();
    microsoft.upsertEvent(ANA, customerMeeting());

    expect((await microsoft.lifecycle(subscription.id, 'missed')).status).toBe(202);

    await momentum.waitFor(1, 15_000);
  });

  it('when a delta link has expired (410 Gone), then the link is dropped and a full sync finds the meeting', async () => {
    const { microsoft, momentum, running, subscription } = await setup();
    microsoft.invalidateDeltaTokens(ANA);
    const event = microsoft.upsertEvent(ANA, customerMeeting());

    await microsoft.notify(subscription.id, 'updated', event.id);

    await momentum.waitFor(1, 15_000);
    await waitFor('the sync to end', () => jobsOf(running, 'microsoft-sync').every((job) => job.state === 'succeeded'));
    const results = jobsOf(running, 'microsoft-sync').map((job) => JSON.parse(String(job.result)) as Record<string, unknown>);
    expect(results).toContainEqual(expect.objectContaining({ linkDropped: true, mode: 'full' }));
  });

  it("when the delta link's date range was set more than a day ago, then the next sync is a full one over today's range, sending nothing twice", async () => {
    const { microsoft, momentum, running, subscription } = await setup();
    const event = microsoft.upsertEvent(ANA, customerMeeting());
    await microsoft.notify(subscription.id, 'created', event.id);
    await momentum.waitFor(1, 15_000);
    const db = new DatabaseSync(path.join(running.dir, 'bridge.db'));
    db.prepare(`UPDATE microsoft_mailboxes SET window_started_at = window_started_at - 86400000`).run();
    db.close();
    const fullSyncsBefore = microsoft.requestsOf('delta').filter((call) => call.query.startDateTime !== undefined).length;

    await microsoft.notify(subscription.id, 'updated', event.id);

    await waitFor('a full sync', () => microsoft.requestsOf('delta').filter((call) => call.query.startDateTime !== undefined).length > fullSyncsBefore);
    await waitFor('the sync to end', () => jobsOf(running, 'microsoft-sync').every((job) => job.state === 'succeeded'));
    const results = jobsOf(running, 'microsoft-sync').map((job) => JSON.parse(String(job.result)) as Record<string, unknown>);
    expect(results.at(-1)).toMatchObject({ windowRolled: true, mode: 'full' });
    const [mailbox] = running.rows(`SELECT window_started_at FROM microsoft_mailboxes`);
    expect(Number(mailbox?.window_started_at)).toBeGreaterThan(Date.now() - 60_000);
    // The meeting read again is a duplicate: Momentum got it once.
    expect(momentum.requests).toHaveLength(1);
  });

  it('when Graph answers 429 with Retry-After, then the sync is retried after it and then succeeds', async () => {
    const { microsoft, momentum, running, subscription } = await setup();
    microsoft.fail('delta', 429, { times: 1, headers: { 'retry-after': '1' }, body: { error: { code: 'ApplicationThrottled', message: 'slow down' } } });
    const event = microsoft.upsertEvent(ANA, customerMeeting());

    await microsoft.notify(subscription.id, 'created', event.id);

    await momentum.waitFor(1, 15_000);
    const attempts = running.rows(`SELECT a.status FROM attempts a JOIN jobs j ON j.id = a.job_id WHERE j.kind = 'microsoft-sync' AND a.status = 429`);
    expect(attempts).toHaveLength(1);
  });

  it('when the bridge restarts, then it reuses the stored subscription instead of creating another', async () => {
    const { microsoft, momentum, running } = await setup();
    await running.bridge.stop();

    const again = await startMicrosoftBridge(microsoft, momentum.url, { dir: running.dir, port: running.port });
    cleanups.push(again.bridge.stop);
    await waitFor('the first upkeep round', () => again.logs.lines().some((line) => line.message === 'Microsoft 365 calendar watching is on'));
    // Give the upkeep round that start() began time to (not) create one.
    await new Promise((resolve) => setTimeout(resolve, 500));

    expect(microsoft.requestsOf('create')).toHaveLength(1);
    expect([...microsoft.subscriptions.values()].filter((item) => !item.deleted)).toHaveLength(1);
  });

  it('when the app authenticates with a certificate, then MSAL signs a client assertion the identity platform accepts', async () => {
    const pemUrl = new URL('../fakes/tls/client-cert.pem', import.meta.url);
    const { microsoft } = await setup({
      clientCertificatePem: readFileSync(pemUrl, 'utf8'),
      env: { MICROSOFT_CLIENT_SECRET: '', MICROSOFT_CLIENT_CERTIFICATE_FILE: pemUrl.pathname },
    });

    expect(microsoft.tokensIssued.map((token) => token.credential)).toContain('certificate');
    expect(microsoft.tokensIssued.map((token) => token.credential)).not.toContain('secret');
  });

  it('when an operator stops the mailbox, then its subscription is deleted at Graph and in the store, and the list shows it stopped', async () => {
    const { microsoft, running, subscription } = await setup({ env: { ADMIN_API_KEYS: 'admin-key-for-tests-0001' } });
    const auth = { authorization: 'Bearer admin-key-for-tests-0001' };

    const removed = await request(`${running.bridge.url}/admin/calendars/${encodeURIComponent(ANA)}?provider=microsoft`, { method: 'DELETE', headers: auth });
    const list = await request(`${running.bridge.url}/admin/calendars`, { headers: auth }).then((response) => response.body.json());

    expect(removed.statusCode).toBe(204);
    expect(microsoft.subscriptions.get(subscription.id)).toMatchObject({ deleted: true, removedBy: 'client' });
    expect(running.rows(`SELECT removed_at FROM graph_subscriptions WHERE id = '${subscription.id}'`)[0]?.removed_at).not.toBeNull();
    expect(list).toEqual({ calendars: [expect.objectContaining({ provider: 'microsoft', calendarId: ANA, watching: false, channel: null })] });
  });

  it('when an operator adds a mailbox, then it is subscribed at once and listed with its subscription, expiry and last sync', async () => {
    const { microsoft, running } = await setup({ env: { ADMIN_API_KEYS: 'admin-key-for-tests-0001' } });
    const auth = { authorization: 'Bearer admin-key-for-tests-0001', 'content-type': 'application/json' };
    microsoft.addMailbox('bo.rep@example.com');

    const added = await request(`${running.bridge.url}/admin/calendars`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ calendarId: 'Bo.Rep@example.com', provider: 'microsoft' }),
    });
    const body = (await added.body.json()) as Record<string, unknown>;

    expect(added.statusCode).toBe(201);
    expect(body).toMatchObject({
      provider: 'microsoft',
      calendarId: 'bo.rep@example.com',
      watching: true,
      addedBy: 'admin',
      channel: { id: expect.any(String) },
    });
    await waitFor('the new mailbox synced', async () => {
      const list = (await request(`${running.bridge.url}/admin/calendars`, { headers: auth }).then((response) => response.body.json())) as {
        calendars: Array<{ calendarId: string; lastSyncAt: string | null }>;
      };
      return list.calendars.find((item) => item.calendarId === 'bo.rep@example.com')?.lastSyncAt !== null;
    });
  });
});
