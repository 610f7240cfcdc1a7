import { afterEach, describe, expect, it } from 'vitest';

import { eventDetailSchema, eventPageSchema } from '../../src/admin/response-schemas.ts';
import { MAP_EVENT_JOB } from '../../src/mapping/map-event-job.ts';
import { type AdminApp, startAdminApp } from './support/admin-app.ts';
import { remapJob, settledJob, storeEvent } from './support/seed.ts';

const T = Date.parse('2026-05-08T13:40:22.000Z');

describe('GET /admin/events', () => {
  let harness: AdminApp | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('when events are listed, then they come newest first by reception, filtered by source, state and time, page by page', async () => {
    harness = await startAdminApp();
    const old = await storeEvent(harness.store, { key: 'sf-1', receivedAt: T });
    const google = await storeEvent(harness.store, { key: 'g-1', source: 'google', receivedAt: T + 60_000, rawPayload: '{"x-goog-resource-state":"exists"}' });
    const recent = await storeEvent(harness.store, { key: 'sf-2', receivedAt: T + 120_000 });
    const ids = async (query: string) => (await harness!.get(`/admin/events?${query}`).expect(200)).body.items.map((item: { id: number }) => item.id);

    const all = await harness.get('/admin/events').expect(200);
    const page1 = await harness.get('/admin/events?limit=2').expect(200);
    const page2 = await harness.get(`/admin/events?limit=2&cursor=${page1.body.nextCursor}`).expect(200);

    expect(eventPageSchema.parse(all.body)).toEqual(all.body);
    expect(all.body.items.map((item: { id: number }) => item.id)).toEqual([recent.id, google.id, old.id]);
    expect(all.body.items[1]).toEqual({
      id: google.id,
      messageId: google.messageId,
      source: 'google',
      senderId: '00D8d0000001XyZEAU',
      dedupeKey: 'g-1',
      receivedAt: new Date(T + 60_000).toISOString(),
      state: 'received',
      stateReason: null,
      // The seeded Salesforce Event's Subject.
      title: 'Demo',
    });
    expect([...page1.body.items, ...page2.body.items]).toEqual(all.body.items);
    expect(page2.body.nextCursor).toBeNull();
    expect(await ids('source=google')).toEqual([google.id]);
    expect(await ids('state=mapped')).toEqual([]);
    expect(await ids(`since=${new Date(T + 60_000).toISOString()}&until=${new Date(T + 120_000).toISOString()}`)).toEqual([google.id]);
  });

  it.each(['state=done', 'limit=1000', 'until=tomorrow', 'source=', 'cursor=%25%25'])('when the query is %s, then 400', async (query) => {
    harness = await startAdminApp();

    const response = await harness.get(`/admin/events?${query}`);

    expect(response.status).toBe(400);
    expect(response.body.error.code).toMatch(/^invalid_(query|cursor)$/);
  });
});

describe('GET /admin/events/:id', () => {
  let harness: AdminApp | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('when an event is read, then it carries the raw payload of its message exactly as received and the jobs it produced', async () => {
    harness = await startAdminApp();
    const raw = '<?xml version="1.0" encoding="UTF-8"?>\n<soapenv:Envelope><sf:Subject>Démo &amp; call</sf:Subject></soapenv:Envelope>';
    const event = await storeEvent(harness.store, { key: '00U5w00000XyZ12AAB', rawPayload: raw, receivedAt: T });
    const mapping = await settledJob(harness.store, { kind: MAP_EVENT_JOB, payload: { eventId: event.id }, eventId: event.id }, { state: 'succeeded' });
    const [remap] = await harness.store.enqueue([remapJob('evt-from-sf', { eventId: event.id })]);

    const response = await harness.get(`/admin/events/${event.id}`);

    expect(response.status).toBe(200);
    expect(eventDetailSchema.parse(response.body)).toEqual(response.body);
    expect(response.body.message).toEqual({
      id: event.messageId,
      source: 'salesforce',
      senderId: '00D8d0000001XyZEAU',
      receivedAt: new Date(T).toISOString(),
      rawPayload: raw,
    });
    expect(response.body.event).toMatchObject({ id: event.id, dedupeKey: '00U5w00000XyZ12AAB', parsedPayload: event.parsedPayload });
    expect(response.body.jobs.map((job: { id: number; kind: string }) => [job.id, job.kind])).toEqual([
      [mapping.id, MAP_EVENT_JOB],
      [remap!.id, 'remap'],
    ]);
  });

  it('when the event is unknown, then 404; when the id is malformed, then 400', async () => {
    harness = await startAdminApp();

    const unknown = await harness.get('/admin/events/77');
    const malformed = await harness.get('/admin/events/-3');

    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toEqual({ code: 'not_found', message: 'inbound event 77 does not exist' });
    expect(malformed.status).toBe(400);
  });
});

describe('POST /admin/events/:id/reprocess', () => {
  let harness: AdminApp | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it("when an event is reprocessed, then a new map-event job for it is queued (mapping runs again with today's rules)", async () => {
    harness = await startAdminApp();
    const event = await storeEvent(harness.store, { key: 'sf-again' });

    const response = await harness.post(`/admin/events/${event.id}/reprocess`);

    expect(response.status).toBe(202);
    const job = await harness.store.getJob(response.body.job.id);
    expect(job).toMatchObject({ kind: MAP_EVENT_JOB, payload: { eventId: event.id }, eventId: event.id, state: 'pending' });
    expect(harness.logs.lines().find((line) => line.message === 'admin change')).toMatchObject({ action: 'reprocessEvent', eventId: event.id, jobId: job!.id });
  });

  it('when the event is unknown, then 404 and no job is queued', async () => {
    harness = await startAdminApp();

    const response = await harness.post('/admin/events/5150/reprocess');

    expect(response.status).toBe(404);
    expect(await harness.store.countJobs({})).toBe(0);
  });
});
