import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { createJobRegistry } from '../../src/jobs/registry.ts';
import { runJob } from '../../src/jobs/run-job.ts';
import { builtInRules } from '../../src/mapping/default-rules.ts';
import { createMapEventHandler } from '../../src/mapping/map-event-handler.ts';
import type { SalesforceDirectory } from '../../src/salesforce/directory.ts';
import { createSalesforceApi } from '../../src/salesforce/jsforce-connection.ts';
import { createJsforceDirectory } from '../../src/salesforce/jsforce-directory.ts';
import { outboundMessageReceiver } from '../../src/salesforce/outbound-message-receiver.ts';
import { createSalesforceEventMapper } from '../../src/salesforce/salesforce-event-mapper.ts';
import type { IngestResult, Job, Store } from '../../src/store/types.ts';
import { type FakeSalesforce, startFakeSalesforce } from '../fakes/fake-salesforce.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { captureLogs } from '../support/log-capture.ts';
import { openRealStore } from '../support/real-store.ts';

const ORG = '00D8d0000001XyZEAU';
const OWNER = '0058d0000101XyZAAU';
const HOUR = 3_600_000;
const rules = builtInRules({ triggerSummary: false, triggerAiSignals: false });
const fixture = (name: string) => readFileSync(`test/fixtures/salesforce/${name}`, 'utf8');

const cleanups = cleanupAfterEach();

async function sqliteStore(): Promise<Store> {
  const { store, close } = await openRealStore('sqlite', 'map-event');
  cleanups.push(close);
  return store;
}

async function fakeSalesforce(): Promise<{ fake: FakeSalesforce; directory: SalesforceDirectory }> {
  const fake = await startFakeSalesforce({ clientId: 'bridge-app', clientSecret: 'secret', users: { [OWNER]: 'ae@example.com' } });
  cleanups.push(() => fake.close());
  const api = createSalesforceApi({
    auth: { flow: 'client-credentials', loginUrl: fake.url, clientId: 'bridge-app', clientSecret: 'secret' },
    apiVersion: '62.0',
  });
  return { fake, directory: createJsforceDirectory({ api, logger: captureLogs().logger, cacheTtlMs: 600_000 }) };
}

/** Stores a message as the Salesforce route does; anything but `stored` fails the test. */
async function ingest(store: Store, xml: string): Promise<IngestResult> {
  const outcome = await outboundMessageReceiver({ store, orgIds: [ORG] })(Buffer.from(xml, 'utf8'));
  if (outcome.kind !== 'stored') throw new Error(`the message was not stored: ${JSON.stringify(outcome)}`);
  return outcome.result;
}

/** Runs every claimable job of the store through the real runJob with the map-event handler, as the worker would. */
async function runMapJobs(store: Store, directory?: SalesforceDirectory, now = Date.now()): Promise<Job[]> {
  const logs = captureLogs();
  const mappers = { salesforce: createSalesforceEventMapper({ rules, ...(directory ? { directory } : {}) }) };
  const handler = createMapEventHandler({ store, logger: logs.logger, mappers });
  const deps = {
    store,
    registry: createJobRegistry({ 'map-event': handler }),
    logger: logs.logger,
    owner: 'test-worker',
    retrySchedule: [0, 10_000, 60_000],
    now: () => now,
    random: () => 0.5,
  };
  const jobs = await store.claim({ owner: 'test-worker', limit: 100, leaseMs: 60_000, now });
  await Promise.all(jobs.map((job) => runJob(deps, job, { signal: new AbortController().signal, isAbandoned: () => false, release: () => {} })));
  return jobs;
}

/** The remap jobs waiting in the store (claimed far in the future so retries show up too; claiming does not change what is checked). */
async function pendingRemaps(store: Store): Promise<Job[]> {
  const jobs = await store.claim({ owner: 'inspector', limit: 100, leaseMs: 1_000, now: Date.now() + 24 * HOUR });
  return jobs.filter((job) => job.kind === 'remap');
}

describe('map-event handler', () => {
  it('when event-opportunity.xml is mapped with lookups, then one remap with the host email is enqueued and the event is mapped', async () => {
    const store = await sqliteStore();
    const { fake, directory } = await fakeSalesforce();
    const result = await ingest(store, fixture('event-opportunity.xml'));
    const eventId = result.created[0]!.id;

    const [mapJob] = await runMapJobs(store, directory);

    expect(await store.getJob(mapJob!.id)).toMatchObject({ state: 'succeeded', attempts: 1 });
    expect(await store.getEvent(eventId)).toMatchObject({ state: 'mapped', stateReason: null });
    const remaps = await pendingRemaps(store);
    // The Event is a meeting the bridge now knows (its record's meeting): its remaps coalesce per meeting.
    const meetingId = await store.meetings.meetingOfRecord(mapJob!.serialKey!);
    expect(meetingId).toEqual(expect.any(Number));
    expect(remaps).toHaveLength(1);
    expect(remaps[0]).toMatchObject({
      eventId,
      coalesceKey: `meeting-id:${meetingId}`,
      payload: {
        request: {
          salesforceRecords: { opportunityId: '0068d0000101XyZAAU', accountId: '0018d0000101XyZAAU' },
          meetingDetails: { title: 'Pricing review with Globex', startTime: '2026-03-02T16:00:00.000Z', hostEmail: 'ae@example.com' },
        },
        flags: { triggerSummary: false, triggerAiSignals: false },
      },
    });
    expect(fake.queries().map((query) => query.soql)).toEqual([`SELECT Id, Email FROM User WHERE Id IN ('${OWNER}')`]);
  });

  it('when no directory is configured, then the remap is enqueued without a host email', async () => {
    const store = await sqliteStore();
    await ingest(store, fixture('event-opportunity.xml'));

    await runMapJobs(store);

    const [remap] = await pendingRemaps(store);
    expect(JSON.stringify((remap?.payload as { request: unknown }).request)).toBe(
      '{"salesforceRecords":{"opportunityId":"0068d0000101XyZAAU","accountId":"0018d0000101XyZAAU"},' +
        '"meetingDetails":{"title":"Pricing review with Globex","startTime":"2026-03-02T16:00:00.000Z"}}',
    );
  });

  it('when three Tasks of one owner are mapped at once, then one query looks the owner up and three remaps are enqueued', async () => {
    const store = await sqliteStore();
    const { fake, directory } = await fakeSalesforce();
    await ingest(store, fixture('task-leads-batch.xml'));

    const mapJobs = await runMapJobs(store, directory);

    expect(mapJobs).toHaveLength(3);
    const remaps = await pendingRemaps(store);
    expect(remaps.map((job) => (job.payload as { request: unknown }).request)).toEqual(
      [1, 2, 3].map((n) => ({
        salesforceRecords: { leadId: `00Q8d000011${n}XyZEAU` },
        meetingDetails: { title: `Intro call ${n}`, hostEmail: 'ae@example.com' },
      })),
    );
    expect(fake.queries()).toHaveLength(1);
  });

  it('when a newer change of the same Event is mapped while the older remap is pending, then only the newest remap is left', async () => {
    const store = await sqliteStore();
    await ingest(store, fixture('event-opportunity.xml'));
    await runMapJobs(store);
    // The same Event, changed: a new notification Id, now related to another Opportunity.
    const newer = fixture('event-opportunity.xml').replace('04l8d0000101XyZAAU', '04l8d0000102XyZAAU').replace('0068d0000101XyZAAU', '0068d0000102XyZAAU');
    await ingest(store, newer);

    await runMapJobs(store);

    const remaps = await pendingRemaps(store);
    expect(remaps).toHaveLength(1);
    expect((remaps[0]?.payload as { request: { salesforceRecords: unknown } }).request.salesforceRecords).toEqual({
      opportunityId: '0068d0000102XyZAAU',
      accountId: '0018d0000101XyZAAU',
    });
  });

  it('when an Opportunity has no meeting identity, then the event is skipped with the reason, nothing is enqueued and Salesforce is not asked', async () => {
    const store = await sqliteStore();
    const { fake, directory } = await fakeSalesforce();
    const result = await ingest(store, fixture('opportunity.xml'));
    const eventId = result.created[0]!.id;

    const [mapJob] = await runMapJobs(store, directory);

    const reason =
      'no meeting identity for Opportunity: the mapping names no meeting fields (momentumMeetingIdField, sourceIdField, titleField or startTimeField)';
    expect(await store.getJob(mapJob!.id)).toMatchObject({ state: 'skipped', lastError: reason });
    expect(await store.getEvent(eventId)).toMatchObject({ state: 'skipped', stateReason: reason });
    expect(await pendingRemaps(store)).toEqual([]);
    expect(fake.requests).toEqual([]);
  });

  it('when Salesforce answers 503 to the owner lookup, then the job is retried, nothing is enqueued, and the retry maps the event', async () => {
    const store = await sqliteStore();
    const { fake, directory } = await fakeSalesforce();
    const result = await ingest(store, fixture('event-opportunity.xml'));
    const eventId = result.created[0]!.id;
    fake.failQueries(1, 503);

    const [mapJob] = await runMapJobs(store, directory);

    expect(await store.getJob(mapJob!.id)).toMatchObject({
      state: 'pending',
      attempts: 1,
      lastError: 'Salesforce User lookup failed: SERVER_UNAVAILABLE: Service temporarily unavailable',
    });
    expect(await store.getAttempts(mapJob!.id)).toEqual([expect.objectContaining({ errorClass: 'salesforce_lookup' })]);
    expect(await store.getEvent(eventId)).toMatchObject({ state: 'received' });

    const [retried] = await runMapJobs(store, directory, Date.now() + HOUR);

    expect(retried?.id).toBe(mapJob!.id);
    expect(await store.getJob(mapJob!.id)).toMatchObject({ state: 'succeeded', attempts: 2 });
    expect(await store.getEvent(eventId)).toMatchObject({ state: 'mapped' });
    expect(await pendingRemaps(store)).toHaveLength(1);
    expect(fake.queries().map((query) => query.status)).toEqual([503, 200]);
  });

  it('when an event comes from a source without a mapper, then the job is dead and the event failed, with the reason', async () => {
    const store = await sqliteStore();
    const { created } = await store.ingest({ source: 'zoom', rawPayload: '{}', events: [{ dedupeKey: 'zoom:1', parsedPayload: {} }] }, (event) => [
      { kind: 'map-event', payload: { eventId: event.id }, eventId: event.id },
    ]);

    const [mapJob] = await runMapJobs(store);

    const reason = 'no mapper for inbound events from source "zoom"';
    expect(await store.getJob(mapJob!.id)).toMatchObject({ state: 'dead', lastError: reason });
    expect(await store.getEvent(created[0]!.id)).toMatchObject({ state: 'failed', stateReason: reason });
    expect(await pendingRemaps(store)).toEqual([]);
  });

  it('when a stored Salesforce event is malformed, then the job is dead and the event failed', async () => {
    const store = await sqliteStore();
    const { created } = await store.ingest(
      { source: 'salesforce', rawPayload: '<x/>', events: [{ dedupeKey: 'salesforce:bad', parsedPayload: { notificationId: 'n', fields: [] } }] },
      (event) => [{ kind: 'map-event', payload: { eventId: event.id }, eventId: event.id }],
    );

    const [mapJob] = await runMapJobs(store);

    expect(await store.getJob(mapJob!.id)).toMatchObject({ state: 'dead', lastError: expect.stringMatching(/^stored Salesforce notification is malformed: /) });
    expect(await store.getEvent(created[0]!.id)).toMatchObject({ state: 'failed' });
  });

  it('when the event of a job does not exist, then the job is dead without retrying', async () => {
    const store = await sqliteStore();
    const [job] = await store.enqueue([{ kind: 'map-event', payload: { eventId: 999 } }]);

    await runMapJobs(store);

    expect(await store.getJob(job!.id)).toMatchObject({ state: 'dead', attempts: 1, lastError: 'inbound event 999 does not exist' });
  });
});
