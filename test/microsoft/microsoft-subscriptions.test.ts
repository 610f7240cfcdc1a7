import { readFileSync } from 'node:fs';

import { request } from 'undici';
import { expect, it } from 'vitest';

import { cleanupAfterEach } from '../support/cleanups.ts';
import { describeEachEngine } from '../support/stored-state.ts';
import { waitFor } from '../support/wait-for.ts';
import { ANA, customerMeeting, startMicrosoftBridge } from './support/ms-bridge.ts';
import { ADMIN_KEY, adminCalendars, expectSynced, jobsOf, metricsText, microsoftScene, post, settled } from './support/ms-setup.ts';

/*
 * Graph subscriptions through the real startBridge on both engines: lifecycle notifications, a
 * restart, certificate credentials and the operator's add and stop, with the state they leave.
 */

const cleanups = cleanupAfterEach();
const admin = { env: { ADMIN_API_KEYS: ADMIN_KEY } };

describeEachEngine('Microsoft 365 subscriptions through startBridge', (engine) => {
  const setup = microsoftScene(engine, cleanups);

  it('when Graph sends reauthorizationRequired, then the subscription is renewed once, and not again within 10 minutes', async () => {
    const { microsoft, running, subscription } = await setup();

    const first = await microsoft.lifecycle(subscription.id, 'reauthorizationRequired');
    await waitFor('the renewal', () => microsoft.subscriptions.get(subscription.id)!.renewals === 1);
    const second = await microsoft.lifecycle(subscription.id, 'reauthorizationRequired');
    await settled(running);

    expect([first.status, second.status]).toEqual([202, 202]);
    expect(microsoft.subscriptions.get(subscription.id)!.renewals).toBe(1);
    expect((await jobsOf(running, 'microsoft-lifecycle')).map((job) => job.state)).toEqual(['succeeded', 'skipped']);
    const [stored] = await running.rows(`SELECT renewed_at FROM graph_subscriptions WHERE id = $1`, [subscription.id]);
    expect(stored?.renewed_at).toEqual(expect.any(Number));
  });

  it('when Graph sends subscriptionRemoved, then a new subscription is created and the mailbox is synced', async () => {
    const { microsoft, momentum, running, subscription } = await setup();
    microsoft.upsertEvent(ANA, customerMeeting());

    const answer = await microsoft.lifecycle(subscription.id, 'subscriptionRemoved');

    expect(answer.status).toBe(202);
    await waitFor('a new subscription', () => [...microsoft.subscriptions.values()].some((item) => !item.deleted && item.id !== subscription.id));
    // The sync after recreation finds the meeting changed while no subscription was live.
    const [remap] = await momentum.waitFor(1, 15_000);
    expect(remap?.body).toMatchObject({ meetingDetails: { title: 'Pricing review with Globex' } });
    await settled(running);
    const live = await running.rows(`SELECT id FROM graph_subscriptions WHERE removed_at IS NULL`);
    expect(live.map((row) => row.id)).toEqual([[...microsoft.subscriptions.values()].find((item) => !item.deleted)!.id]);
    await expectSynced(running);
  });

  it('when Graph sends missed, then the mailbox is synced', async () => {
    const { microsoft, momentum, running, subscription } = await setup();
    microsoft.upsertEvent(ANA, customerMeeting());

    expect((await microsoft.lifecycle(subscription.id, 'missed')).status).toBe(202);

    await momentum.waitFor(1, 15_000);
    await settled(running);
    await expectSynced(running);
  });

  it('when an authenticated lifecycle notification names an event the bridge does not know, then it is acknowledged (202), counted and logged, and nothing else happens', async () => {
    const { microsoft, momentum, running, subscription } = await setup();
    const jobsBefore = await running.rows(`SELECT id FROM jobs`);
    const item = { subscriptionId: subscription.id, clientState: subscription.clientState, lifecycleEvent: 'subscriptionPaused', tenantId: microsoft.tenantId };

    const answer = await post(`${running.bridge.url}/calendar/microsoft/lifecycle`, JSON.stringify({ value: [item] }));

    expect(answer.status).toBe(202);
    expect(await running.rows(`SELECT id FROM jobs`)).toEqual(jobsBefore);
    expect(await metricsText(running)).toMatch(/bridge_inbound_notifications_total\{source="microsoft",outcome="ignored",reason="unknown_lifecycle_event"\} 1/);
    expect(running.bridge.logs.lines()).toContainEqual(
      expect.objectContaining({ level: 'warn', message: 'microsoft lifecycle: unknown lifecycle event ignored', events: ['subscriptionPaused'] }),
    );
    expect(microsoft.requestsOf('renew')).toHaveLength(0);
    expect(momentum.requests).toHaveLength(0);
    await settled(running);
  });

  it('when an unknown lifecycle event comes with the wrong clientState, then it is refused with 403 as before', async () => {
    const { running, subscription } = await setup();
    const item = { subscriptionId: subscription.id, clientState: 'forged', lifecycleEvent: 'subscriptionPaused' };

    const answer = await post(`${running.bridge.url}/calendar/microsoft/lifecycle`, JSON.stringify({ value: [item] }));

    expect(answer.status).toBe(403);
    expect(await metricsText(running)).not.toMatch(/outcome="ignored"/);
  });

  it('when the bridge restarts, then it reuses the stored subscription instead of creating another', async () => {
    const { microsoft, momentum, running } = await setup();
    await running.bridge.stop();

    const again = await startMicrosoftBridge(microsoft, momentum.url, { database: running.database, port: running.port });
    cleanups.push(again.close);
    await waitFor('the start', () => again.bridge.logs.lines().some((line) => line.message === 'Microsoft 365 calendar watching is on'));
    // Give the upkeep round that start() began time to (not) create one.
    await new Promise((resolve) => setTimeout(resolve, 500));

    expect(microsoft.requestsOf('create')).toHaveLength(1);
    expect([...microsoft.subscriptions.values()].filter((item) => !item.deleted)).toHaveLength(1);
    await settled(again);
    await expectSynced(again);
  });

  it('when the app authenticates with a certificate, then MSAL signs a client assertion the identity platform accepts', async () => {
    const pemUrl = new URL('../fakes/tls/client-cert.pem', import.meta.url);
    const { microsoft, running } = await setup({
      clientCertificatePem: readFileSync(pemUrl, 'utf8'),
      env: { MICROSOFT_CLIENT_SECRET: '', MICROSOFT_CLIENT_CERTIFICATE_FILE: pemUrl.pathname },
    });

    expect(microsoft.tokensIssued.map((token) => token.credential)).toContain('certificate');
    expect(microsoft.tokensIssued.map((token) => token.credential)).not.toContain('secret');
    await expectSynced(running);
  });

  it('when an operator stops the mailbox, then its subscription is deleted at Graph and in the store, and the list shows it stopped', async () => {
    const { microsoft, running, subscription } = await setup(admin);

    const removed = await request(`${running.bridge.url}/admin/calendars/${encodeURIComponent(ANA)}?provider=microsoft`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });

    expect(removed.statusCode).toBe(204);
    expect(microsoft.subscriptions.get(subscription.id)).toMatchObject({ deleted: true, removedBy: 'client' });
    const [stored] = await running.rows(`SELECT removed_at FROM graph_subscriptions WHERE id = $1`, [subscription.id]);
    expect(stored?.removed_at).toEqual(expect.any(Number));
    expect(await adminCalendars(running)).toEqual([expect.objectContaining({ provider: 'microsoft', calendarId: ANA, watching: false, channel: null })]);
  });

  it('when an operator adds a mailbox, then it is subscribed at once, synced, and listed with its subscription, expiry and last sync', async () => {
    const { microsoft, running } = await setup(admin);
    microsoft.addMailbox('bo.rep@example.com');

    const added = await request(`${running.bridge.url}/admin/calendars`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
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
    await waitFor(
      'the new mailbox synced',
      async () => (await adminCalendars(running)).find((item) => item.calendarId === 'bo.rep@example.com')?.lastSyncAt !== null,
    );
    await settled(running);
    await expectSynced(running, 'bo.rep@example.com');
    expect(await adminCalendars(running)).toContainEqual(
      expect.objectContaining({ calendarId: 'bo.rep@example.com', hasSyncToken: true, lastError: null, lastSyncAt: expect.any(String) }),
    );
  });
});
