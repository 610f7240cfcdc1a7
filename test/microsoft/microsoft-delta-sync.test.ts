import { expect, it } from 'vitest';

import { MAX_DELTA_PAGES } from '../../src/microsoft/delta-walk.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { describeEachEngine } from '../support/stored-state.ts';
import { waitFor } from '../support/wait-for.ts';
import { ANA, customerMeeting } from './support/ms-bridge.ts';
import { adminCalendars, expectSynced, jobsOf, mailboxRow, metricsText, microsoftScene, settled, storedPages } from './support/ms-setup.ts';
import { refuseInserts } from './support/refuse-inserts.ts';

/*
 * The delta sync through the real startBridge on both engines: links Graph expires or that name
 * another host, the moving window, throttling, values no store keeps, a nextLink chain that never
 * ends and a store that fails; each asserting what stays stored and what an operator sees.
 */

const cleanups = cleanupAfterEach();
const DAY_MS = 86_400_000;
const admin = { env: { ADMIN_API_KEYS: 'admin-key-for-tests-0001' } };

const syncResults = async (running: Parameters<typeof jobsOf>[0]) =>
  (await jobsOf(running, 'microsoft-sync')).filter((job) => job.result !== null).map((job) => JSON.parse(String(job.result)) as Record<string, unknown>);

describeEachEngine('Microsoft 365 delta sync through startBridge', (engine) => {
  const setup = microsoftScene(engine, cleanups);

  /** A meeting synced and sent, then the stored link's date range made a day old: the next sync rolls the window. */
  async function syncedWithDayOldWindow() {
    const scene = await setup();
    const { microsoft, momentum, running, subscription } = scene;
    const event = microsoft.upsertEvent(ANA, customerMeeting());
    await microsoft.notify(subscription.id, 'created', event.id);
    await momentum.waitFor(1, 15_000);
    await settled(running);
    const before = await mailboxRow(running);
    await (await running.bridge.store()).subscriptions.setDeltaLink(ANA, before.delta_link, Date.now(), before.window_started_at! - DAY_MS);
    return { ...scene, event };
  }

  it('when a delta link has expired (410 Gone), then the link is dropped and a full sync finds the meeting and stores a new link', async () => {
    const { microsoft, momentum, running, subscription } = await setup();
    microsoft.invalidateDeltaTokens(ANA);
    const event = microsoft.upsertEvent(ANA, customerMeeting());

    await microsoft.notify(subscription.id, 'updated', event.id);

    await momentum.waitFor(1, 15_000);
    await settled(running);
    expect(await syncResults(running)).toContainEqual(expect.objectContaining({ linkDropped: true, mode: 'full' }));
    await expectSynced(running);
    expect(await metricsText(running)).toMatch(/bridge_calendar_syncs_total\{source="microsoft",outcome="full_resync"\} 1/);
  });

  it("when the delta link's date range was set more than a day ago, then the next sync is a full one over today's range, sending nothing twice", async () => {
    const { microsoft, momentum, running, subscription, event } = await syncedWithDayOldWindow();

    await microsoft.notify(subscription.id, 'updated', event.id);

    await waitFor('a full sync', async () => (await syncResults(running)).some((result) => result.windowRolled === true));
    await settled(running);
    expect((await syncResults(running)).at(-1)).toMatchObject({ windowRolled: true, mode: 'full' });
    expect((await expectSynced(running)).window_started_at).toBeGreaterThan(Date.now() - 60_000);
    // The meeting read again is a duplicate: Momentum got it once; the full sync's page is stored beside the first.
    expect(momentum.requests).toHaveLength(1);
    expect(await storedPages(running)).toHaveLength(2);
  });

  it('when a meeting is deleted after the last sync and the next sync rolls the window, then its removal is read from the old link and stored before the full sync', async () => {
    // Arrange: a synced meeting; then the link's range is made a day old and the meeting deleted.
    const { microsoft, running, subscription, event } = await syncedWithDayOldWindow();
    microsoft.deleteEvent(ANA, event.id);

    // Act
    await microsoft.notify(subscription.id, 'deleted', event.id);

    // Assert: the removal is stored (a full sync alone would list nothing for it), and the window rolled.
    await waitFor('a full sync', async () => (await syncResults(running)).some((result) => result.windowRolled === true));
    await settled(running);
    const removals = await running.rows(`SELECT dedupe_key FROM inbound_events WHERE dedupe_key LIKE $1`, [`microsoft:${event.id}::cancelled:%`]);
    expect(removals).toHaveLength(1);
    expect((await syncResults(running)).at(-1)).toMatchObject({ windowRolled: true, mode: 'full' });
    expect((await expectSynced(running)).window_started_at).toBeGreaterThan(Date.now() - 60_000);
  });

  it('when an event is removed, comes back and is removed again, then each removal is stored, the second not taken for a duplicate of the first', async () => {
    // Arrange: a synced meeting, deleted, then one with the same id written again.
    const { microsoft, momentum, running, subscription } = await setup();
    const event = microsoft.upsertEvent(ANA, customerMeeting());
    await microsoft.notify(subscription.id, 'created', event.id);
    await momentum.waitFor(1, 15_000);
    await settled(running);
    microsoft.deleteEvent(ANA, event.id);
    await microsoft.notify(subscription.id, 'deleted', event.id);
    await waitFor('the first removal', async () => (await running.rows(`SELECT id FROM inbound_events WHERE dedupe_key LIKE '%::cancelled:%'`)).length === 1);
    await settled(running);
    microsoft.upsertEvent(ANA, { ...customerMeeting(), id: event.id });
    await microsoft.notify(subscription.id, 'created', event.id);
    await waitFor('the meeting back', async () => (await running.rows(`SELECT id FROM inbound_events WHERE source = 'microsoft'`)).length === 3);
    await settled(running);

    // Act
    microsoft.deleteEvent(ANA, event.id);
    await microsoft.notify(subscription.id, 'deleted', event.id);

    // Assert
    await waitFor('the second removal', async () => (await running.rows(`SELECT id FROM inbound_events WHERE dedupe_key LIKE '%::cancelled:%'`)).length === 2);
    await settled(running);
    await expectSynced(running);
  });

  it('when Graph answers 429 with Retry-After, then the sync is retried after it and then succeeds', async () => {
    const { microsoft, momentum, running, subscription } = await setup();
    microsoft.fail('delta', 429, { times: 1, headers: { 'retry-after': '1' }, body: { error: { code: 'ApplicationThrottled', message: 'slow down' } } });
    const event = microsoft.upsertEvent(ANA, customerMeeting());

    await microsoft.notify(subscription.id, 'created', event.id);

    await momentum.waitFor(1, 15_000);
    await settled(running, { retriedKinds: ['microsoft-sync'] });
    const attempts = await running.rows(`SELECT a.status FROM attempts a JOIN jobs j ON j.id = a.job_id WHERE j.kind = 'microsoft-sync' AND a.status = 429`);
    expect(attempts).toHaveLength(1);
    await expectSynced(running);
  });

  it('when Graph throttles with a fractional Retry-After (2.128 in its own guidance), then the retry waits the whole of it', async () => {
    const { microsoft, momentum, running, subscription } = await setup();
    microsoft.fail('delta', 429, { times: 1, headers: { 'retry-after': '1.5' }, body: { error: { code: 'ApplicationThrottled', message: 'slow down' } } });
    const event = microsoft.upsertEvent(ANA, customerMeeting());
    const callsBefore = microsoft.requestsOf('delta').length;

    await microsoft.notify(subscription.id, 'created', event.id);

    await momentum.waitFor(1, 15_000);
    const [throttled, retried] = microsoft.requestsOf('delta').slice(callsBefore);
    expect([throttled?.status, retried?.status]).toEqual([429, 200]);
    // The retry schedule alone would come back after 100 ms.
    expect(retried!.at - throttled!.at).toBeGreaterThanOrEqual(1_500);
    await settled(running, { retriedKinds: ['microsoft-sync'] });
    await expectSynced(running);
  });

  it('when Graph answers 400 to the stored delta link, then the link is dropped and a full sync stores a new one', async () => {
    const { microsoft, momentum, running, subscription } = await setup();
    microsoft.fail('delta', 400, { times: 1, body: { error: { code: 'ErrorInvalidRequest', message: 'The delta token is malformed.' } } });
    const event = microsoft.upsertEvent(ANA, customerMeeting());

    await microsoft.notify(subscription.id, 'created', event.id);

    await momentum.waitFor(1, 15_000);
    await settled(running);
    expect((await syncResults(running)).at(-1)).toMatchObject({ linkDropped: true, mode: 'full' });
    expect(running.bridge.logs.lines()).toContainEqual(
      expect.objectContaining({ level: 'warn', message: 'delta link rejected (400 Bad Request): dropped, running a full sync' }),
    );
    await expectSynced(running);
  });

  it('when the last page of a round carries no deltaLink, then the sync fails visibly and is read again, never succeeding with no link', async () => {
    const { microsoft, momentum, running, subscription } = await setup(admin);
    let answered = 0;
    // One round whose last page ends with neither link, then Graph as documented.
    microsoft.scriptDelta(ANA, () => (answered++ === 0 ? { value: [] } : undefined));
    const event = microsoft.upsertEvent(ANA, customerMeeting());

    await microsoft.notify(subscription.id, 'created', event.id);

    await momentum.waitFor(1, 15_000);
    await settled(running, { retriedKinds: ['microsoft-sync'] });
    const failed = await running.rows(
      `SELECT response_excerpt FROM attempts a JOIN jobs j ON j.id = a.job_id WHERE j.kind = 'microsoft-sync' AND a.response_excerpt LIKE '%no @odata.deltaLink%'`,
    );
    expect(failed).toHaveLength(1);
    await expectSynced(running);
  });

  it('when a meeting subject holds U+0000 and an unpaired surrogate, then the sync stores it without them and Momentum gets the cleaned title', async () => {
    const { microsoft, momentum, running, subscription } = await setup();
    const event = microsoft.upsertEvent(ANA, customerMeeting({ subject: 'Pricing\u0000 review with Globex \uD800', bodyPreview: 'a\u0000b' }));

    await microsoft.notify(subscription.id, 'created', event.id);

    const [remap] = await momentum.waitFor(1, 15_000);
    expect(remap?.body).toMatchObject({ meetingDetails: { title: 'Pricing review with Globex \uFFFD' } });
    await settled(running);
    const [page] = await storedPages(running);
    expect(page?.value).toEqual([expect.objectContaining({ subject: 'Pricing review with Globex \uFFFD', bodyPreview: 'ab' })]);
    const [stored] = await running.rows(`SELECT parsed_payload FROM inbound_events WHERE source = 'microsoft'`);
    expect(JSON.parse(String(stored?.parsed_payload))).toMatchObject({ title: 'Pricing review with Globex \uFFFD' });
    await expectSynced(running);
  });

  it('when the stored delta link names a host other than Graph, then it is dropped with a warning and a full sync stores a link at Graph', async () => {
    const { microsoft, momentum, running, subscription } = await setup();
    const before = await mailboxRow(running);
    // A link kept from before MICROSOFT_GRAPH_API_URL changed (another cloud, a proxy that went away).
    const elsewhere = 'https://graph.elsewhere.example/v1.0/users/x/calendarView/delta?$deltatoken=old';
    await (await running.bridge.store()).subscriptions.setDeltaLink(ANA, elsewhere, Date.now(), before.window_started_at!);
    const event = microsoft.upsertEvent(ANA, customerMeeting());

    await microsoft.notify(subscription.id, 'created', event.id);

    await momentum.waitFor(1, 15_000);
    await settled(running);
    expect(running.bridge.logs.lines()).toContainEqual(
      expect.objectContaining({ level: 'warn', message: 'stored delta link refused (not MICROSOFT_GRAPH_API_URL): dropped, running a full sync', userId: ANA }),
    );
    expect((await syncResults(running)).at(-1)).toMatchObject({ linkDropped: true, mode: 'full' });
    expect((await expectSynced(running)).delta_link!.startsWith(microsoft.graphUrl)).toBe(true);
  });

  it('when Graph hands out nextLinks that never end, then the sync stops at the page bound, ends dead with the reason, and the operator sees it', async () => {
    const { microsoft, momentum, running, subscription } = await setup(admin);
    const linkBefore = (await mailboxRow(running)).delta_link;
    let page = 0;
    microsoft.scriptDelta(ANA, (_query, deltaUrl) => ({ value: [], '@odata.nextLink': `${deltaUrl}?$skiptoken=endless-${(page += 1)}` }));
    const callsBefore = microsoft.requestsOf('delta').length;

    await microsoft.notify(subscription.id, 'updated', 'AAMkAD-no-such-event');

    await settled(running, { deadKinds: ['microsoft-sync'] });
    expect(microsoft.requestsOf('delta').length - callsBefore).toBe(MAX_DELTA_PAGES);
    const [dead] = (await jobsOf(running, 'microsoft-sync')).filter((job) => job.state === 'dead');
    expect(dead).toMatchObject({ attempts: 1, last_error: expect.stringContaining(`no deltaLink after ${MAX_DELTA_PAGES} pages`) });
    expect(await mailboxRow(running)).toMatchObject({ delta_link: linkBefore, last_error: expect.stringContaining('the bound of one sync') });
    expect(await adminCalendars(running)).toEqual([
      expect.objectContaining({ calendarId: ANA, hasSyncToken: true, lastError: expect.stringContaining(`no deltaLink after ${MAX_DELTA_PAGES} pages`) }),
    ]);

    // Graph behaves again: the next sync succeeds and clears the error.
    microsoft.scriptDelta(ANA, undefined);
    const event = microsoft.upsertEvent(ANA, customerMeeting());
    await microsoft.notify(subscription.id, 'created', event.id);
    await momentum.waitFor(1, 15_000);
    await settled(running, { deadKinds: ['microsoft-sync'] });
    await expectSynced(running);
  });

  it('when the store fails while a sync stores its page, then the job is retried, ends dead with the reason, and the operator sees it as the last error', async () => {
    const { microsoft, momentum, running, subscription } = await setup(admin);
    const undo = await refuseInserts(running.database, 'inbound_messages', 'inbound_messages refused by the test');
    const event = microsoft.upsertEvent(ANA, customerMeeting());

    await microsoft.notify(subscription.id, 'created', event.id);

    await settled(running, { deadKinds: ['microsoft-sync'], retriedKinds: ['microsoft-sync'] });
    const [dead] = (await jobsOf(running, 'microsoft-sync')).filter((job) => job.state === 'dead');
    expect(dead).toMatchObject({ attempts: 3, last_error: expect.stringMatching(/^gave up after 3 attempts: .*inbound_messages refused by the test/) });
    expect(await adminCalendars(running)).toEqual([
      expect.objectContaining({ calendarId: ANA, lastError: expect.stringContaining('inbound_messages refused by the test') }),
    ]);
    expect(await storedPages(running)).toEqual([]);

    await undo();
    await microsoft.notify(subscription.id, 'updated', event.id);
    await momentum.waitFor(1, 15_000);
    await settled(running, { deadKinds: ['microsoft-sync'], retriedKinds: ['microsoft-sync'] });
    await expectSynced(running);
    expect(await storedPages(running)).toHaveLength(1);
  });
});
