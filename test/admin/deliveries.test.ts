import { setTimeout as sleep } from 'node:timers/promises';

import { afterEach, describe, expect, it } from 'vitest';

import { deliveryDetailSchema, deliveryPageSchema } from '../../src/admin/response-schemas.ts';
import { type AdminApp, startAdminApp } from './support/admin-app.ts';
import { deadRemap, pendingJob, remapJob, remapPayload, settledJob, storeEvent } from './support/seed.ts';

describe('GET /admin/deliveries', () => {
  let harness: AdminApp | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('when deliveries are listed, then remaps and imports come newest first, without mapping jobs, in the documented shape', async () => {
    harness = await startAdminApp();
    const dead = await deadRemap(harness.store, 'evt-1');
    const [imported, mapping] = await harness.store.enqueue([
      { kind: 'import', payload: { request: { meeting: { title: 'Call' } } } },
      { kind: 'map-event', payload: { eventId: 1 } },
    ]);

    const response = await harness.get('/admin/deliveries');

    expect(response.status).toBe(200);
    expect(deliveryPageSchema.parse(response.body)).toEqual(response.body);
    expect(response.body.items.map((item: { id: number }) => item.id)).toEqual([imported!.id, dead.id]);
    expect(response.body.items.map((item: { id: number }) => item.id)).not.toContain(mapping!.id);
    expect(response.body.items[1]).toMatchObject({
      id: dead.id,
      kind: 'remap',
      state: 'dead',
      meeting: 'source:GOOGLE_CALENDAR:evt-1',
      attempts: 2,
      lastError: '503 from Momentum after 3 attempts',
    });
    expect(response.body.nextCursor).toBeNull();
  });

  it('when filtered by state, kind, meeting, Salesforce id and time, then only matching deliveries are listed', async () => {
    harness = await startAdminApp();
    const dead = await deadRemap(harness.store, 'evt-a');
    const succeeded = await settledJob(
      harness.store,
      { ...remapJob('evt-b'), payload: remapPayload('evt-b', '0065w000023XYZaAAC') },
      { state: 'succeeded', result: { requestId: 'r1' } },
    );
    await sleep(5);
    const pending = await pendingJob(harness.store, remapJob('evt-c'));
    const since = new Date(pending.createdAt).toISOString();

    const ids = async (query: string) => (await harness!.get(`/admin/deliveries?${query}`).expect(200)).body.items.map((item: { id: number }) => item.id);

    expect(await ids('state=dead')).toEqual([dead.id]);
    expect(await ids('kind=import')).toEqual([]);
    expect(await ids('meeting=source%3AGOOGLE_CALENDAR%3Aevt-b')).toEqual([succeeded.id]);
    // 15 characters find the 18-character id stored in the request; the checksum is not needed.
    expect(await ids('salesforceId=0065w000023XYZa')).toEqual([succeeded.id]);
    expect(await ids('salesforceId=0065w000023XYZaAAC')).toEqual([succeeded.id]);
    expect(await ids('salesforceId=0065w000023xyzaAAC')).toEqual([]);
    expect(await ids(`since=${encodeURIComponent(since)}`)).toEqual([pending.id]);
    expect(await ids(`until=${encodeURIComponent(since)}`)).toEqual([succeeded.id, dead.id]);
  });

  it('when deliveries are listed, then each row names its meeting as the request did: title or source, start time and the Salesforce ids sent', async () => {
    harness = await startAdminApp();
    const [remap, imported, bare] = await harness.store.enqueue([
      {
        kind: 'remap',
        payload: {
          request: {
            source: { id: 'abc123', type: 'GOOGLE_CALENDAR' },
            salesforceRecords: { opportunityId: '0065w000023STAmAAO', accountId: '0015w00002XyZaBAAV' },
            meetingDetails: { title: 'Pricing review', startTime: '2026-05-08T10:00:00Z' },
          },
          flags: { triggerSummary: false, triggerAiSignals: false },
        },
      },
      {
        kind: 'import',
        payload: {
          request: {
            meeting: { id: 'zoom-8842', title: 'Recorded demo', startTime: '2026-05-07T15:30:00Z', salesforceOpportunityId: '0065w000023XYZaAAC' },
          },
        },
      },
      // A remap by meeting details alone, and a payload that fits no schema: nulls, not an error.
      { kind: 'remap', payload: { request: { salesforceRecords: { leadId: '00Q5w00001AbCdEEAV' }, meetingDetails: { momentumMeetingId: 7 } } } },
    ]);
    const [broken] = await harness.store.enqueue([{ kind: 'import', payload: 'not an object' }]);

    const response = await harness.get('/admin/deliveries').expect(200);

    expect(deliveryPageSchema.parse(response.body)).toEqual(response.body);
    const byId = new Map(response.body.items.map((item: { id: number }) => [item.id, item]));
    expect(byId.get(remap!.id)).toMatchObject({
      title: 'Pricing review',
      sourceRef: 'GOOGLE_CALENDAR:abc123',
      startTime: '2026-05-08T10:00:00Z',
      salesforceIds: { opportunityId: '0065w000023STAmAAO', accountId: '0015w00002XyZaBAAV' },
    });
    expect(byId.get(imported!.id)).toMatchObject({
      title: 'Recorded demo',
      sourceRef: 'zoom-8842',
      startTime: '2026-05-07T15:30:00Z',
      salesforceIds: { salesforceOpportunityId: '0065w000023XYZaAAC' },
    });
    expect(byId.get(bare!.id)).toMatchObject({ title: null, sourceRef: null, startTime: null, salesforceIds: { leadId: '00Q5w00001AbCdEEAV' } });
    expect(byId.get(broken!.id)).toMatchObject({ kind: 'import', title: null, sourceRef: null, startTime: null, salesforceIds: {} });
  });

  it('when q is given, then only deliveries whose title, source, import meeting id or a Salesforce id holds it are listed, A-Z matching a-z', async () => {
    harness = await startAdminApp();
    const [pricing, imported, other] = await harness.store.enqueue([
      {
        kind: 'remap',
        payload: {
          request: {
            source: { id: 'abc123', type: 'GOOGLE_CALENDAR' },
            salesforceRecords: { opportunityId: '0065w000023STAmAAO' },
            meetingDetails: { title: 'Pricing review 100%' },
          },
        },
      },
      { kind: 'import', payload: { request: { meeting: { id: 'zoom-8842', title: 'Recorded demo', salesforceAccountId: '0015w00002XyZaBAAV' } } } },
      { kind: 'remap', payload: { request: { source: { id: 'zzz', type: 'ZOOM' }, salesforceRecords: { leadId: '00Q5w00001AbCdEEAV' } }, note: 'pricing' } },
    ]);
    await harness.store.enqueue([{ kind: 'map-event', payload: { request: { meetingDetails: { title: 'Pricing review' } } } }]);
    const ids = async (query: string) => (await harness!.get(`/admin/deliveries?${query}`).expect(200)).body.items.map((item: { id: number }) => item.id);

    expect(await ids('q=PRICING')).toEqual([pricing!.id]);
    expect(await ids(`q=${encodeURIComponent('google_calendar:ABC1')}`)).toEqual([pricing!.id]);
    expect(await ids('q=0065w000023stam')).toEqual([pricing!.id]);
    expect(await ids('q=xyzab')).toEqual([imported!.id]);
    expect(await ids('q=zoom-88')).toEqual([imported!.id]);
    expect(await ids('q=00Q5w00001AbCdE')).toEqual([other!.id]);
    expect(await ids('q=zoom')).toEqual([other!.id, imported!.id]);
    expect(await ids(`q=${encodeURIComponent('100%')}`)).toEqual([pricing!.id]);
    expect(await ids(`q=${encodeURIComponent('1%')}`)).toEqual([]);
    expect(await ids('q=pricing&kind=import')).toEqual([]);
    expect(await ids('q=nothing-like-this')).toEqual([]);
  });

  it.each([
    ['q=', 'an empty q'],
    [`q=${'a'.repeat(201)}`, 'a q of 201 characters'],
    ['q=a%09b', 'a tab in q'],
    ['q=a%0Ab', 'a newline in q'],
    ['q=a%C2%85b', 'a C1 control character in q'],
  ])('when the query is %s (%s), then 400 names q', async (query) => {
    harness = await startAdminApp();

    const response = await harness.get(`/admin/deliveries?${query}`);

    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_query');
    expect(response.body.error.details.map((issue: { path: string }) => issue.path)).toEqual(['q']);
  });

  it('when q is 200 characters, then it is taken', async () => {
    harness = await startAdminApp();

    await harness.get(`/admin/deliveries?q=${'a'.repeat(200)}`).expect(200);
  });

  it('when the list spans several pages, then the cursors walk it newest first with no row twice and no row missed', async () => {
    harness = await startAdminApp();
    const created = await harness.store.enqueue(Array.from({ length: 5 }, (_, index) => remapJob(`evt-${index}`, { runAt: Date.now() + 3_600_000 })));

    const first = await harness.get('/admin/deliveries?limit=2').expect(200);
    const second = await harness.get(`/admin/deliveries?limit=2&cursor=${first.body.nextCursor}`).expect(200);
    const third = await harness.get(`/admin/deliveries?limit=2&cursor=${second.body.nextCursor}`).expect(200);

    const seen = [first, second, third].flatMap((page) => page.body.items.map((item: { id: number }) => item.id));
    expect(seen).toEqual(created.map((job) => job.id).reverse());
    expect(third.body.nextCursor).toBeNull();
  });

  it.each([
    ['state=lost', 'invalid_query', 'state'],
    ['kind=map-event', 'invalid_query', 'kind'],
    ['limit=201', 'invalid_query', 'limit'],
    ['limit=0', 'invalid_query', 'limit'],
    ['limit=ten', 'invalid_query', 'limit'],
    ['since=yesterday', 'invalid_query', 'since'],
    ['since=2026-05-08T10:00:00Z&until=2026-05-08T09:00:00Z', 'invalid_query', 'since'],
    ['salesforceId=0065w0000', 'invalid_query', 'salesforceId'],
    ['staet=dead', 'invalid_query', ''],
    ['state=dead&state=pending', 'invalid_query', 'state'],
  ])('when the query is %s, then 400 %s names %s', async (query, code, field) => {
    harness = await startAdminApp();

    const response = await harness.get(`/admin/deliveries?${query}`);

    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe(code);
    expect(response.body.error.details.map((issue: { path: string }) => issue.path)).toContain(field);
  });

  it('when the cursor was not handed out by the API, then 400 invalid_cursor', async () => {
    harness = await startAdminApp();

    const response = await harness.get('/admin/deliveries?cursor=not-a-cursor');

    expect(response.status).toBe(400);
    expect(response.body.error).toEqual({ code: 'invalid_cursor', message: 'cursor is not one this API handed out; start again without it' });
  });
});

describe('GET /admin/deliveries/:id', () => {
  let harness: AdminApp | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('when a dead delivery is read, then it shows the request, flags, every attempt, its inbound event and its replays', async () => {
    harness = await startAdminApp();
    const event = await storeEvent(harness.store, { key: '00U5w00000AbCdEAAZ' });
    const dead = await deadRemap(harness.store, 'evt-detail', { eventId: event.id });
    const replay = (await harness.post(`/admin/deliveries/${dead.id}/replay`).expect(202)).body.delivery;

    const response = await harness.get(`/admin/deliveries/${dead.id}`);

    expect(response.status).toBe(200);
    expect(deliveryDetailSchema.parse(response.body)).toEqual(response.body);
    const { delivery, attempts } = response.body;
    expect(delivery).toMatchObject({
      id: dead.id,
      state: 'dead',
      request: remapPayload('evt-detail').request,
      flags: { triggerSummary: false, triggerAiSignals: false },
      replay: false,
    });
    expect(attempts).toEqual([
      expect.objectContaining({ status: 503, errorClass: 'http_5xx', error: 'upstream unavailable', upstreamRequestId: 'req-a', durationMs: 40 }),
      expect.objectContaining({ status: 503, errorClass: 'http_5xx', error: 'upstream unavailable', upstreamRequestId: 'req-b', durationMs: 35 }),
    ]);
    expect(new Date(attempts[0].startedAt).toISOString()).toBe(attempts[0].startedAt);
    expect(response.body.event).toMatchObject({ id: event.id, source: 'salesforce', dedupeKey: '00U5w00000AbCdEAAZ' });
    expect(response.body.replays).toEqual([replay]);
    expect(response.body.replayOf).toBeNull();
    expect(response.body.supersededBy).toBeNull();
  });

  it('when a replay or a superseded delivery is read, then it links to what it replays and to what superseded it', async () => {
    harness = await startAdminApp();
    const dead = await deadRemap(harness.store, 'evt-links');
    const replayId = (await harness.post(`/admin/deliveries/${dead.id}/replay`).expect(202)).body.delivery.id;
    const [newer] = await harness.store.enqueue([remapJob('evt-links')]);

    const replay = await harness.get(`/admin/deliveries/${replayId}`).expect(200);

    expect(replay.body.delivery).toMatchObject({ id: replayId, state: 'superseded', replay: true, replayOf: dead.id, supersededBy: newer!.id });
    expect(replay.body.replayOf).toMatchObject({ id: dead.id, state: 'dead' });
    expect(replay.body.supersededBy).toMatchObject({ id: newer!.id, state: 'pending' });
  });

  it('when the id is unknown, or names a job that is not a delivery, then 404; when it is not a number, then 400', async () => {
    harness = await startAdminApp();
    const [mapping] = await harness.store.enqueue([{ kind: 'map-event', payload: { eventId: 1 } }]);

    const unknown = await harness.get('/admin/deliveries/999999');
    const notDelivery = await harness.get(`/admin/deliveries/${mapping!.id}`);
    const malformed = await harness.get('/admin/deliveries/abc');
    const extraQuery = await harness.get(`/admin/deliveries/${mapping!.id}?verbose=1`);

    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: { code: 'not_found', message: 'delivery 999999 does not exist' } });
    expect(notDelivery.status).toBe(404);
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatchObject({ code: 'invalid_path', details: [{ path: 'id', message: 'expected a positive whole number' }] });
    expect(extraQuery.status).toBe(400);
  });
});
