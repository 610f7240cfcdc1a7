import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { expect, it } from 'vitest';

import { cleanupAfterEach } from '../support/cleanups.ts';
import { describeEachEngine } from '../support/stored-state.ts';
import { ANA, customerMeeting, OPPORTUNITY } from './support/ms-bridge.ts';
import { expectSynced, jobsOf, metricsText, microsoftScene, post, settled, storedPages } from './support/ms-setup.ts';

/*
 * Graph's change notifications through the real startBridge on both engines, against a loopback
 * fake of Graph and of the Microsoft identity platform (HTTPS, a real MSAL client), and a fake
 * Momentum: what is accepted, what is refused, and the state the syncs leave stored.
 */

const cleanups = cleanupAfterEach();

describeEachEngine('Microsoft 365 change notifications through startBridge', (engine) => {
  const setup = microsoftScene(engine, cleanups);

  it('when a watched mailbox gets a meeting and Graph notifies, then the delta sync finds it, Momentum receives the remap in UTC and the new delta link is stored', async () => {
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
    const before = await expectSynced(running);

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
    await settled(running);
    // The sync read from the stored link (no new window) and stored the next one.
    const after = await expectSynced(running);
    expect(after.delta_link).not.toBe(before.delta_link);
    expect(after.window_started_at).toBe(before.window_started_at);
    expect(after.last_sync_at).toBeGreaterThanOrEqual(before.last_sync_at!);
    expect((await storedPages(running)).map((page) => page.value.length)).toEqual([1]);
  });

  it('when a second meeting is notified, then the sync reads only what changed since the stored link: one raw page per change, nothing read again', async () => {
    const { microsoft, momentum, running, subscription } = await setup();
    const first = microsoft.upsertEvent(ANA, customerMeeting());
    await microsoft.notify(subscription.id, 'created', first.id);
    await momentum.waitFor(1, 15_000);
    await settled(running);

    const second = microsoft.upsertEvent(ANA, customerMeeting({ subject: 'Renewal with Globex' }));
    await microsoft.notify(subscription.id, 'created', second.id);

    await momentum.waitFor(2, 15_000);
    await settled(running);
    const pages = await storedPages(running);
    expect(pages.map((page) => page.value.map((item) => (item as { id: string }).id))).toEqual([[first.id], [second.id]]);
    await expectSynced(running);
    expect(momentum.requests).toHaveLength(2);
  });

  it('when the mapping rules name a microsoftSourceType, then the remap names the source by iCalUId', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mapping-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'mapping.json');
    writeFileSync(file, JSON.stringify({ calendar: { microsoftSourceType: 'OUTLOOK_CALENDAR' } }));
    const { microsoft, momentum, running, subscription } = await setup({ env: { MAPPING_FILE: file } });

    const event = microsoft.upsertEvent(ANA, customerMeeting());
    await microsoft.notify(subscription.id, 'updated', event.id);

    const [remap] = await momentum.waitFor(1, 15_000);
    expect(remap?.body).toMatchObject({ source: { type: 'OUTLOOK_CALENDAR', id: event.iCalUId }, salesforceRecords: { opportunityId: OPPORTUNITY } });
    await settled(running);
    await expectSynced(running);
  });

  it('when a notification carries the wrong clientState or an unknown subscription, then it is refused with 403 and nothing is stored', async () => {
    const { microsoft, momentum, running, subscription } = await setup();
    const syncsBefore = (await jobsOf(running, 'microsoft-sync')).length;
    const event = microsoft.upsertEvent(ANA, customerMeeting());

    const forged = await microsoft.notify(subscription.id, 'created', event.id, { clientState: 'not-the-secret' });
    const unknown = await post(
      `${running.bridge.url}/calendar/microsoft/notifications`,
      JSON.stringify({ value: [{ subscriptionId: 'f00dfeed-0000-0000-0000-000000000000', clientState: subscription.clientState, changeType: 'created' }] }),
    );

    expect(forged.status).toBe(403);
    expect(JSON.parse(forged.body)).toMatchObject({ error: { code: 'notifications_refused' } });
    expect(unknown.status).toBe(403);
    expect(await jobsOf(running, 'microsoft-sync')).toHaveLength(syncsBefore);
    const metrics = await metricsText(running);
    expect(metrics).toMatch(/bridge_inbound_notifications_total\{source="microsoft",outcome="refused",reason="client_state_mismatch"\} 1/);
    expect(metrics).toMatch(/bridge_inbound_notifications_total\{source="microsoft",outcome="refused",reason="unknown_subscription"\} 1/);
    expect(metrics).toMatch(/bridge_calendar_watches\{source="microsoft",state="live"\} 1/);
    expect(metrics).toMatch(/bridge_calendar_upkeep_total\{source="microsoft",what="created"\} 1/);
    expect(metrics).toMatch(/bridge_calendar_syncs_total\{source="microsoft",outcome="succeeded"\} [1-9]/);
    // Once everything queued has run: nothing was read from Graph for the refused notifications, nothing sent.
    await settled(running);
    expect(await jobsOf(running, 'microsoft-sync')).toHaveLength(syncsBefore);
    expect(momentum.requests).toHaveLength(0);
    expect(await storedPages(running)).toEqual([]);
  });

  it('when a batch mixes a good item and a forged one, then the good one is accepted (202) and the forged one only counted', async () => {
    const { microsoft, momentum, running, subscription } = await setup();
    const event = microsoft.upsertEvent(ANA, customerMeeting());

    const answer = await microsoft.notify(subscription.id, 'created', event.id, {
      extraItems: [{ subscriptionId: subscription.id, clientState: 'forged', changeType: 'created', resource: 'Users/x/Events/y' }],
    });

    expect(answer.status).toBe(202);
    await momentum.waitFor(1, 15_000);
    await settled(running);
    await expectSynced(running);
  });

  it('when Graph sends its validation request with a token holding markup, then the decoded token comes back as plain text', async () => {
    const { running } = await setup();
    const token = 'Validation: Testing client application reachability <script>alert(1)</script> & more';

    for (const route of ['/calendar/microsoft/notifications', '/calendar/microsoft/lifecycle']) {
      const answer = await post(`${running.bridge.url}${route}?validationToken=${encodeURIComponent(token)}`, '', 'text/plain; charset=utf-8');
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(answer.body).toBe(token);
    }
  });

  it('when a body is malformed, of the wrong type, too large or holds U+0000 in a field read, then it gets a precise 4xx and nothing is stored', async () => {
    const { running, subscription } = await setup({ env: { CALENDAR_MAX_BODY: '2048' } });
    const url = `${running.bridge.url}/calendar/microsoft/notifications`;
    const before = (await jobsOf(running, 'microsoft-sync')).length;

    const malformed = await post(url, '{"value": [');
    const wrongType = await post(url, 'value=1', 'application/x-www-form-urlencoded');
    const notGraph = await post(url, JSON.stringify({ value: [] }));
    const tooLarge = await post(url, JSON.stringify({ value: [{ subscriptionId: 'x', clientState: 'y'.repeat(3000) }] }));
    const nul = await post(url, JSON.stringify({ value: [{ subscriptionId: `${subscription.id}\u0000`, clientState: subscription.clientState }] }));

    expect([malformed.status, wrongType.status, notGraph.status, tooLarge.status, nul.status]).toEqual([400, 415, 400, 413, 400]);
    expect(JSON.parse(tooLarge.body)).toMatchObject({ error: { code: 'body_too_large' } });
    expect(JSON.parse(nul.body)).toMatchObject({
      error: { code: 'invalid_notification', message: expect.stringMatching(/value\.0\.subscriptionId holds U\+0000/) },
    });
    expect(await jobsOf(running, 'microsoft-sync')).toHaveLength(before);
    await settled(running);
  });
});
