import { expect, it } from 'vitest';

import { postCalendarEvent } from '../calendar/support/signed-events.ts';
import { type FakeGoogle, startFakeGoogle } from '../fakes/fake-google.ts';
import { type FakeMomentum, startFakeMomentum } from '../fakes/fake-momentum.ts';
import { startCalendarBridge } from '../google/support/calendar-bridge.ts';
import { meetingEvent } from '../google/support/google-setup.ts';
import { TEST_SERVICE_ACCOUNT, testKeyPair } from '../google/support/service-account-key.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { type Engine, testDatabase } from '../support/real-store.ts';
import { describeEachEngine, expectSettled, queryRows, waitSettled } from '../support/stored-state.ts';
import { type TestBridge } from '../support/test-bridge.ts';
import { waitFor } from '../support/wait-for.ts';

/*
 * The calendar surfaces through the real startBridge wiring (not a harness that assembles the
 * pieces itself), on both engines: a wiring slip in src/bridge.ts or src/job-handlers.ts fails
 * here. Each test checks what reached the fake Momentum and what the bridge left in its database.
 */

const ANA = 'ana.rep@example.com';
const OPPORTUNITY = '0068d0000101XyZAAU';

const cleanups = cleanupAfterEach();

const rows = (bridge: TestBridge, sql: string) => queryRows(bridge.databaseUrl, sql);

async function setup(engine: Engine): Promise<{ google: FakeGoogle; momentum: FakeMomentum; bridge: TestBridge }> {
  const google = await startFakeGoogle({ serviceAccountEmail: TEST_SERVICE_ACCOUNT, publicKeyPem: testKeyPair().publicKeyPem });
  const momentum = await startFakeMomentum();
  const database = testDatabase(engine, 'calendar-bridge');
  cleanups.push(google.close, momentum.close, database.drop);
  const bridge = await startCalendarBridge({ google, momentum, calendars: [ANA], database });
  cleanups.push(bridge.stop);
  // Watching starts in the background once the bridge listens: the channel, then a full sync. Each
  // test starts once it is done, so what it finds in the queue is what it did.
  await waitFor('a watch channel at Google', () => google.channels.size > 0);
  await waitFor(
    'the first sync token stored',
    async () => (await rows(bridge, 'SELECT sync_token FROM google_calendars WHERE sync_token IS NOT NULL')).length > 0,
  );
  await waitSettled(bridge.databaseUrl);
  return { google, momentum, bridge };
}

const teamsMeeting = (overrides: Record<string, unknown> = {}) =>
  JSON.stringify({
    version: 1,
    id: 'teams-42',
    sourceType: 'MS_TEAMS',
    title: 'Globex pricing review',
    start: '2026-03-02T16:00:00Z',
    end: '2026-03-02T16:30:00Z',
    organizer: { email: ANA },
    attendees: [{ email: 'hank.buyer@globex.test' }],
    salesforce: { opportunityId: OPPORTUNITY },
    ...overrides,
  });

const kindsAndStates = (jobs: Array<{ kind: string; state: string }>) => jobs.map((job) => [job.kind, job.state]);

describeEachEngine('calendar webhooks through startBridge', (engine) => {
  it('when the bridge starts watching and Google pushes "exists" for a linked meeting, then Momentum receives the GOOGLE_CALENDAR remap and the sync token is stored', async () => {
    // Arrange
    const { google, momentum, bridge } = await setup(engine);
    const [channel] = [...google.channels.values()];

    // Act
    google.upsertEvent(
      ANA,
      meetingEvent('evt-1', 24, { summary: 'Pricing review', description: `https://x.lightning.force.com/lightning/r/Opportunity/${OPPORTUNITY}/view` }),
    );
    const pushed = await google.push(channel!.id, 'exists');
    const [remap] = await momentum.waitFor(1);
    await waitSettled(bridge.databaseUrl);

    // Assert: what Momentum received
    expect(pushed).toBe(200);
    expect(channel!.address).toBe(`${bridge.url}/calendar/google/notifications`);
    expect(remap?.headers['x-api-key']).toBe('mk-test-key');
    expect(remap?.body).toMatchObject({ source: { type: 'GOOGLE_CALENDAR', id: 'evt-1' }, salesforceRecords: { opportunityId: OPPORTUNITY } });
    expect(momentum.requests).toHaveLength(1);
    // Assert: what the bridge stored
    const [calendar] = await rows(bridge, 'SELECT calendar_id, watching, sync_token FROM google_calendars');
    expect(calendar).toMatchObject({ calendar_id: ANA, watching: 1 });
    expect(calendar?.sync_token).toEqual(expect.any(String));
    expect(await rows(bridge, `SELECT calendar_id FROM google_channels WHERE stopped_at IS NULL`)).toEqual([{ calendar_id: ANA }]);
    const events = await rows(bridge, `SELECT source, state FROM inbound_events WHERE source = 'google'`);
    expect(events).toEqual([{ source: 'google', state: 'mapped' }]);
    const jobs = await expectSettled(bridge.databaseUrl);
    // The start's full sync and the push's sync coalesce: one may supersede the other, whichever runs first.
    const syncs = jobs.filter((job) => job.kind === 'calendar-sync').map((job) => job.state);
    expect(syncs).toContain('succeeded');
    expect(syncs.filter((state) => state !== 'succeeded' && state !== 'superseded')).toEqual([]);
    expect([...new Set(jobs.map((job) => job.kind))].sort()).toEqual(['calendar-sync', 'map-event', 'remap']);
    expect(kindsAndStates(jobs.filter((job) => job.kind === 'map-event' || job.kind === 'remap'))).toEqual([
      ['map-event', 'succeeded'],
      ['remap', 'succeeded'],
    ]);
  });

  it('when a signed generic event names an opportunity, then it is accepted with 202, forwarded with its declared source type, and stored mapped', async () => {
    // Arrange
    const { momentum, bridge } = await setup(engine);

    // Act
    const response = await postCalendarEvent(bridge.url, teamsMeeting(), { id: 'msg_1' });
    const [remap] = await momentum.waitFor(1);
    await waitSettled(bridge.databaseUrl);

    // Assert
    expect(response.status).toBe(202);
    expect(remap?.body).toMatchObject({ source: { type: 'MS_TEAMS', id: 'teams-42' }, salesforceRecords: { opportunityId: OPPORTUNITY } });
    expect(momentum.requests).toHaveLength(1);
    expect(await rows(bridge, `SELECT source, sender_id, dedupe_key, state FROM inbound_events WHERE source = 'calendar'`)).toEqual([
      { source: 'calendar', sender_id: 'msg_1', dedupe_key: 'calendar:msg_1', state: 'mapped' },
    ]);
    const jobs = await expectSettled(bridge.databaseUrl);
    expect(kindsAndStates(jobs.filter((job) => job.kind === 'map-event' || job.kind === 'remap'))).toEqual([
      ['map-event', 'succeeded'],
      ['remap', 'succeeded'],
    ]);
  });

  it('when the sender retries with the same webhook-id, then 200 duplicate: stored once and sent once', async () => {
    // Arrange
    const { momentum, bridge } = await setup(engine);
    await postCalendarEvent(bridge.url, teamsMeeting(), { id: 'msg_1' });
    await momentum.waitFor(1);

    // Act
    const retry = await postCalendarEvent(bridge.url, teamsMeeting(), { id: 'msg_1' });
    await waitSettled(bridge.databaseUrl);

    // Assert
    expect(retry.status).toBe(200);
    expect(await retry.json()).toEqual({ status: 'duplicate', webhookId: 'msg_1' });
    expect(momentum.requests).toHaveLength(1);
    expect(await rows(bridge, `SELECT COUNT(*) AS n FROM inbound_events WHERE source = 'calendar'`)).toEqual([{ n: 1 }]);
    const jobs = await expectSettled(bridge.databaseUrl);
    expect(kindsAndStates(jobs.filter((job) => job.kind === 'map-event' || job.kind === 'remap'))).toEqual([
      ['map-event', 'succeeded'],
      ['remap', 'succeeded'],
    ]);
  });

  it('when a signed recording arrives, then Momentum receives its import with the host, and the recording is stored mapped', async () => {
    // Arrange
    const { momentum, bridge } = await setup(engine);
    const recording = JSON.stringify({
      kind: 'recording',
      version: 1,
      id: 'rec-42',
      recordingUrl: 'https://recorder.example.net/r/42',
      host: { email: ANA, name: 'Ana Rep' },
      attendees: [{ email: 'hank.buyer@globex.test' }],
      salesforce: { opportunityId: OPPORTUNITY },
    });

    // Act
    const response = await postCalendarEvent(bridge.url, recording, { id: 'msg_rec' });
    const [sent] = await momentum.waitFor(1);
    await waitSettled(bridge.databaseUrl);

    // Assert
    expect(response.status).toBe(202);
    expect(sent?.path).toBe('/user-provided-meeting');
    expect(sent?.body).toMatchObject({
      meeting: { id: 'rec-42', host: { email: ANA, name: 'Ana Rep' }, recordingUrl: 'https://recorder.example.net/r/42', salesforceOpportunityId: OPPORTUNITY },
    });
    expect(await rows(bridge, `SELECT source, dedupe_key, state FROM inbound_events WHERE source = 'recording'`)).toEqual([
      { source: 'recording', dedupe_key: 'recording:msg_rec', state: 'mapped' },
    ]);
    const jobs = await expectSettled(bridge.databaseUrl);
    expect(kindsAndStates(jobs.filter((job) => job.kind === 'map-event' || job.kind === 'import'))).toEqual([
      ['map-event', 'succeeded'],
      ['import', 'succeeded'],
    ]);
  });

  it('when a recording names its host "organizer", then 400 names it, nothing is stored and nothing reaches Momentum', async () => {
    // Arrange
    const { momentum, bridge } = await setup(engine);
    const recording = JSON.stringify({
      kind: 'recording',
      version: 1,
      id: 'rec-43',
      recordingUrl: 'https://recorder.example.net/r/43',
      organizer: { email: ANA },
    });

    // Act
    const response = await postCalendarEvent(bridge.url, recording, { id: 'msg_org' });
    await waitSettled(bridge.databaseUrl);

    // Assert
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { details: { issues: unknown[] } } }).error.details.issues).toEqual([
      { path: 'organizer', code: 'unrecognized_keys', message: 'unknown field; a recording names its host "host"' },
    ]);
    expect(await rows(bridge, `SELECT id FROM inbound_events WHERE source IN ('calendar', 'recording')`)).toEqual([]);
    expect(await rows(bridge, `SELECT id FROM jobs WHERE kind IN ('map-event', 'remap', 'import')`)).toEqual([]);
    await expectSettled(bridge.databaseUrl);
    expect(momentum.requests).toEqual([]);
  });
});
