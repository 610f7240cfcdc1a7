import { describe, expect, it } from 'vitest';

import { createSqlChannelStore } from '../../src/store/sql-channel-store.ts';
import { sfId } from '../calendar/support/directory-setup.ts';
import { postCalendarEvent } from '../calendar/support/signed-events.ts';
import { type FakeGoogle, startFakeGoogle } from '../fakes/fake-google.ts';
import { type FakeMomentum, startFakeMomentum } from '../fakes/fake-momentum.ts';
import { startFakeSalesforceRecords } from '../fakes/fake-salesforce-records.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import type { RealStore } from '../support/real-store.ts';
import { openRealStore } from '../support/real-store.ts';
import { storedJobs } from '../support/stored-rows.ts';
import type { TestBridge } from '../support/test-bridge.ts';
import { waitFor } from '../support/wait-for.ts';
import { startCalendarBridge } from './support/calendar-bridge.ts';
import { type ClockedCalendarBridge, startClockedCalendarBridge } from './support/clocked-calendar-bridge.ts';
import { meetingEvent } from './support/google-setup.ts';
import { TEST_SERVICE_ACCOUNT, testKeyPair } from './support/service-account-key.ts';
import { sqliteRunner } from './support/sql-runners.ts';

const ANA = 'ana.rep@example.com';
const OPPORTUNITY = '0068d0000101XyZAAU';

interface World {
  database: RealStore & { file: string };
  file: string;
  google: FakeGoogle;
  momentum: FakeMomentum;
  bridges: Array<{ url: string; stop(): Promise<void> }>;
}

const cleanups = cleanupAfterEach();

async function world(): Promise<World> {
  const database = await openRealStore('sqlite', 'calendar-e2e');
  const google = await startFakeGoogle({ serviceAccountEmail: TEST_SERVICE_ACCOUNT, publicKeyPem: testKeyPair().publicKeyPem, pageSize: 2 });
  const momentum = await startFakeMomentum();
  const w: World = { database, file: database.file, google, momentum, bridges: [] };
  cleanups.push(database.close, google.close, momentum.close, async () => {
    for (const bridge of w.bridges.splice(0)) await bridge.stop();
  });
  return w;
}

/**
 * The whole bridge (startBridge) on the world's database, once its first round is done (as at
 * start-up: a channel made and stored, a sync of the calendar enqueued).
 */
async function start(w: World, env: Record<string, string> = {}): Promise<TestBridge> {
  const bridge = await startCalendarBridge({ google: w.google, momentum: w.momentum, calendars: [ANA], database: w.database, env });
  w.bridges.push(bridge);
  await waitFor(
    'the first round of channel upkeep',
    async () => (await activeChannelIds(w.file)).length > 0 && storedJobs(w.file).some((job) => job.kind === 'calendar-sync'),
  );
  return bridge;
}

/** The bridge on a clock the test moves, driven round by round (clocked-calendar-bridge.ts says why it is not startBridge). */
async function startClocked(w: World, options: { now: () => number; port?: number }): Promise<ClockedCalendarBridge> {
  const bridge = await startClockedCalendarBridge({
    store: w.database.store,
    file: w.file,
    google: w.google,
    momentum: w.momentum,
    calendars: [ANA],
    ...options,
  });
  w.bridges.push(bridge);
  return bridge;
}

async function activeChannelIds(file: string): Promise<string[]> {
  const db = await sqliteRunner(file);
  try {
    return (await createSqlChannelStore(db.runner).activeChannels()).map((channel) => channel.id);
  } finally {
    await db.close();
  }
}

/** The start time of the first remap sent, so an edit can keep it exactly. */
const remapStart = (w: World) => ({ dateTime: (remaps(w.momentum)[0]?.body as { meetingDetails: { startTime: string } }).meetingDetails.startTime });

const remaps = (momentum: FakeMomentum) => momentum.requests.filter((request) => request.path === '/v1/meeting/remap');

describe('calendar webhooks end to end', () => {
  it('when the bridge starts, a meeting gets a Salesforce id and Google pushes "exists", then Momentum receives the remap', async () => {
    const w = await world();
    await start(w);
    const [channelId] = await activeChannelIds(w.file);
    const event = w.google.upsertEvent(
      ANA,
      meetingEvent('evt-pricing', 24, { summary: 'Pricing review', extendedProperties: { private: { sfOpportunityId: OPPORTUNITY } } }),
    );

    expect(await w.google.push(channelId!, 'exists')).toBe(200);
    const [remap] = await w.momentum.waitFor(1);

    expect(w.google.channels.get(channelId!)?.address).toBe(`${w.bridges[0]!.url}/calendar/google/notifications`);
    expect(remap?.path).toBe('/v1/meeting/remap');
    expect(remap?.headers['x-api-key']).toBe('mk-test-key');
    expect(remap?.body).toEqual({
      source: { type: 'GOOGLE_CALENDAR', id: 'evt-pricing' },
      salesforceRecords: { opportunityId: OPPORTUNITY },
      meetingDetails: { title: 'Pricing review', startTime: (event.start as { dateTime: string }).dateTime, hostEmail: ANA },
    });
  });

  it('when an edit changes nothing Momentum sees, then the event is mapped again but the remap is not re-sent', async () => {
    const w = await world();
    await start(w);
    const [channelId] = await activeChannelIds(w.file);
    const fields = { summary: 'Pricing review', extendedProperties: { private: { sfOpportunityId: OPPORTUNITY } } };
    w.google.upsertEvent(ANA, meetingEvent('evt-pricing', 24, fields));
    await w.google.push(channelId!, 'exists');
    await w.momentum.waitFor(1);
    // Same event, new `updated` and a new location: a new inbound event, the same remap request.
    const original = w.google.requestsOf('list').length;
    w.google.upsertEvent(ANA, { ...meetingEvent('evt-pricing', 24, fields), start: remapStart(w), location: 'Room 4' });

    await w.google.push(channelId!, 'exists');
    await waitFor(
      'the second remap job to finish',
      () => storedJobs(w.file).filter((job) => job.kind === 'remap' && job.state !== 'pending' && job.state !== 'running').length === 2,
    );

    expect(w.google.requestsOf('list').length).toBeGreaterThan(original);
    expect(
      storedJobs(w.file)
        .filter((job) => job.kind === 'remap')
        .map((job) => job.state),
    ).toEqual(['succeeded', 'skipped']);
    expect(remaps(w.momentum)).toHaveLength(1);
  });

  it('when a notification is dropped, then the backstop sync still brings the change to Momentum', async () => {
    const w = await world();
    // The backstop sync runs every second here (GOOGLE_BACKSTOP_SYNC), and no notification is pushed.
    await start(w, { GOOGLE_BACKSTOP_SYNC: '1s' });
    w.google.upsertEvent(ANA, meetingEvent('evt-dropped', 30, { extendedProperties: { shared: { sfAccountId: '0018d0000101XyZAAU' } } }));

    const [remap] = await w.momentum.waitFor(1);

    expect(remap?.body).toMatchObject({ source: { type: 'GOOGLE_CALENDAR', id: 'evt-dropped' }, salesforceRecords: { accountId: '0018d0000101XyZAAU' } });
  });

  it('when Google answers 410 to the stored sync token, then a full sync runs and the change still arrives once', async () => {
    const w = await world();
    w.google.upsertEvent(ANA, meetingEvent('evt-old', 5, { description: `https://acme.my.salesforce.com/${OPPORTUNITY}` }));
    await start(w);
    await w.momentum.waitFor(1); // the start-up sync maps what is already there
    const [channelId] = await activeChannelIds(w.file);
    w.google.invalidateSyncTokens(ANA);
    w.google.upsertEvent(ANA, meetingEvent('evt-new', 6, { description: `Deal ${OPPORTUNITY}` }));

    await w.google.push(channelId!, 'exists');
    await w.momentum.waitFor(2);
    await waitFor('the sync job to finish', () => storedJobs(w.file).every((job) => job.state !== 'pending' && job.state !== 'running'));

    const lists = w.google.requestsOf('list');
    expect(lists.some((request) => request.query.syncToken !== undefined)).toBe(true);
    expect(lists.at(-1)?.query.syncToken).toBeUndefined();
    expect(remaps(w.momentum).map((request) => (request.body as { source: { id: string } }).source.id)).toEqual(['evt-old', 'evt-new']);
  });

  it('when a channel is due for renewal, then a new one replaces it, and after a restart the stored channel keeps working', async () => {
    const w = await world();
    const clock = { offset: 0 };
    const now = () => Date.now() + clock.offset;
    const bridge = await startClocked(w, { now });
    const [first] = await activeChannelIds(w.file);

    clock.offset = 0.85 * 3_600_000;
    await bridge.scheduler.runOnce({ backstop: false });
    const [second] = await activeChannelIds(w.file);
    await bridge.stop();
    w.bridges.splice(0);
    const watchesBeforeRestart = w.google.requestsOf('watch').length;
    await startClocked(w, { now, port: Number(new URL(bridge.url).port) });
    w.google.upsertEvent(ANA, meetingEvent('evt-after-restart', 8, { extendedProperties: { private: { sfLeadId: sfId('00Q', 3) } } }));

    expect(second).not.toBe(first);
    expect(w.google.channels.get(first!)?.stopped).toBe(true);
    expect(await w.google.push(first!, 'exists')).toBe(404);
    expect(await activeChannelIds(w.file)).toEqual([second]);
    expect(w.google.requestsOf('watch')).toHaveLength(watchesBeforeRestart);
    expect(await w.google.push(second!, 'exists')).toBe(200);
    const sent = await w.momentum.waitFor(1);
    expect(sent[0]?.body).toMatchObject({ source: { id: 'evt-after-restart' }, salesforceRecords: { leadId: sfId('00Q', 3) } });
  });

  it('when a signed generic event names attendees only, then the attendee match reaches Momentum with its declared source type', async () => {
    const w = await world();
    const account = sfId('001', 1);
    const fake = await startFakeSalesforceRecords({
      contacts: [{ Id: sfId('003', 1), Email: 'hank.buyer@globex.test', AccountId: account }],
      opportunities: [
        {
          Id: sfId('006', 1),
          AccountId: account,
          IsClosed: false,
          CloseDate: '2026-09-30',
          CreatedDate: '2026-01-01T00:00:00.000+0000',
          LastModifiedDate: '2026-02-01T00:00:00.000+0000',
          OwnerEmail: ANA,
        },
      ],
    });
    cleanups.push(fake.close);
    const bridge = await start(w, { SALESFORCE_LOGIN_URL: fake.url, SALESFORCE_CLIENT_ID: 'bridge-app', SALESFORCE_CLIENT_SECRET: 'right-secret' });
    const raw = JSON.stringify({
      version: 1,
      id: 'outlook-123',
      sourceType: 'MS_TEAMS',
      title: 'Globex sync',
      start: '2026-03-02T16:00:00Z',
      end: '2026-03-02T16:30:00Z',
      organizer: { email: ANA },
      attendees: [{ email: 'hank.buyer@globex.test' }],
    });

    const response = await postCalendarEvent(bridge.url, raw, { id: 'msg_1' });
    const [remap] = await w.momentum.waitFor(1);

    expect(response.status).toBe(202);
    expect(remap?.body).toEqual({
      source: { type: 'MS_TEAMS', id: 'outlook-123' },
      salesforceRecords: { accountId: account, opportunityId: sfId('006', 1) },
      meetingDetails: { title: 'Globex sync', startTime: '2026-03-02T16:00:00Z', hostEmail: ANA },
    });
  });
});
