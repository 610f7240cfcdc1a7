import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ADMIN_ROUTE_LIST } from '../../src/admin/routes.ts';
import type { CalendarClient } from '../../src/google/calendar-client.ts';
import { createChannelManager } from '../../src/google/channels.ts';
import { type EngineApp, startEngineApp } from '../support/app-harness.ts';
import { describeEachEngine } from '../support/stored-state.ts';
import { KEY } from './support/admin-app.ts';
import { CASES, remap } from './support/bad-input-cases.ts';
import { deadRemap, storeEvent } from './support/seed.ts';

/*
 * Every admin write answers a 4xx to input the database would refuse, on both engines, and
 * stores nothing: integers beyond what an id can be, U+0000 and unpaired surrogates anywhere in
 * a path, query or body, text longer than its field (a coalescing key PostgreSQL cannot index),
 * JSON nested deep enough to overflow the serialiser. Before these were bounded, several passed
 * the schemas and came back as 500s from PostgreSQL (or SQLite took what PostgreSQL refused).
 */

/** Google must not be called: every case is refused before the channel manager is asked anything. */
const noGoogle: CalendarClient = {
  watch: () => Promise.reject(new Error('Google must not be called')),
  stop: () => Promise.reject(new Error('Google must not be called')),
  listEvents: () => Promise.reject(new Error('Google must not be called')),
  close: async () => undefined,
};

describe('every admin write route is covered by a bad-input case', () => {
  it('when the admin API gains a write route, then this table must gain cases for it', () => {
    const writes = ADMIN_ROUTE_LIST.filter((spec) => spec.mutating).map((spec) => spec.operationId);

    expect(new Set(CASES.map((entry) => entry.route))).toEqual(new Set(writes));
  });
});

describeEachEngine('admin writes with input the database would refuse', (engine) => {
  let harness: EngineApp;
  beforeAll(async () => {
    harness = await startEngineApp(engine, {
      env: { ADMIN_API_KEYS: KEY, ADMIN_AUTH_FAILURE_LIMIT: 'off' },
      deps: (store, logger) => ({
        googleManager: createChannelManager({
          store: store.channels,
          client: noGoogle,
          publicBaseUrl: 'https://bridge.example.com',
          ttlMs: 3_600_000,
          logger,
        }),
      }),
    });
    // Something each route could act on, so "nothing stored" is not true merely because there was nothing to act on.
    await storeEvent(harness.store, { key: 'salesforce:04l8d0000101XyZAAU' });
    await deadRemap(harness.store, 'evt-1');
    expect(await harness.counts()).toMatchObject({ messages: 1, events: 1, jobs: 1 });
  });
  afterAll(async () => {
    await harness?.close();
  });

  it.each(CASES)('when $name, then 4xx with a JSON error and nothing is stored', async ({ method, path, body, status }) => {
    // Against the rows and log lines before this case: one case that stores must not fail the next.
    const before = await harness.counts();
    const linesBefore = harness.logs.lines().length;
    let call = request(harness.app)[method](path).set('Authorization', `Bearer ${KEY}`);
    if (typeof body === 'string') call = call.set('Content-Type', 'application/json').send(body);
    else if (body !== undefined) call = call.send(body as object);

    const response = await call;

    expect(response.status).toBe(status ?? 400);
    expect(response.body.error).toEqual(expect.objectContaining({ code: expect.any(String), message: expect.any(String) }));
    expect(await harness.counts()).toEqual(before);
    expect(
      harness.logs
        .lines()
        .slice(linesBefore)
        .filter((line) => line.level === 'error'),
    ).toEqual([]);
  });

  it.each([
    ['/admin/deliveries?meeting=source:ZOOM:a%00b', 'invalid_query'],
    ['/admin/deliveries?q=a%00b', 'invalid_query'],
    ['/admin/activity?since=2026-01-05T09:00:00Z%00', 'invalid_query'],
    ['/admin/events?source=sales%00force', 'invalid_query'],
    ['/admin/deliveries/1%00', 'invalid_path'],
  ])('when a read is asked for %s, then 400 %s as well, not a 500 from the database', async (path, code) => {
    const response = await request(harness.app).get(path).set('Authorization', `Bearer ${KEY}`);

    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe(code);
    expect(response.body.error.message).toMatch(/holds U\+0000 \(NUL\), which cannot be stored$/);
  });

  it('when NUL is refused, then the error names where it was', async () => {
    const response = await request(harness.app)
      .post('/admin/meetings/import')
      .set('Authorization', `Bearer ${KEY}`)
      .send({ meeting: { id: 'm1', attendees: [{ email: 'a@example.com', name: 'A\u0000' }] } });

    expect(response.status).toBe(400);
    expect(response.body.error).toEqual({
      code: 'invalid_body',
      message: 'invalid body: meeting.attendees.0.name: holds U+0000 (NUL), which cannot be stored',
      details: [{ path: 'meeting.attendees.0.name', message: 'holds U+0000 (NUL), which cannot be stored' }],
    });
  });

  it('when a remap is bounded, then the error names the field and its limit', async () => {
    const response = await request(harness.app)
      .post('/admin/meetings/remap')
      .set('Authorization', `Bearer ${KEY}`)
      .send({ ...remap, source: { id: 'x'.repeat(257), type: 'ZOOM' } });

    expect(response.status).toBe(400);
    expect(response.body.error.details).toEqual([expect.objectContaining({ path: 'source.id', message: 'at most 256 characters' })]);
  });
});
