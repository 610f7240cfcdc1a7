import { randomBytes } from 'node:crypto';

import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ADMIN_ROUTE_LIST } from '../../src/admin/routes.ts';
import type { CalendarClient } from '../../src/google/calendar-client.ts';
import { createChannelManager } from '../../src/google/channels.ts';
import { type EngineApp, startEngineApp } from '../support/app-harness.ts';
import { ENGINES } from '../support/real-store.ts';
import { KEY } from './support/admin-app.ts';
import { deadRemap, storeEvent } from './support/seed.ts';

/*
 * Every admin write answers a 4xx to input the database would refuse, on both engines, and
 * stores nothing: integers beyond what an id can be, U+0000 and unpaired surrogates anywhere in
 * a path, query or body, text longer than its field (a coalescing key PostgreSQL cannot index),
 * JSON nested deep enough to overflow the serialiser. Before these were bounded, several passed
 * the schemas and came back as 500s from PostgreSQL (or SQLite took what PostgreSQL refused).
 */

const remap = { source: { id: 'abc123', type: 'GOOGLE_CALENDAR' }, salesforceRecords: { opportunityId: '0065w000023STAmAAO' } };
const randomText = (length: number) => randomBytes(length).toString('base64').slice(0, length);
const deeplyNested = (depth: number) => `{"meeting":{"id":"m1","ext":${'['.repeat(depth)}${']'.repeat(depth)}}}`;

interface Case {
  name: string;
  method: 'post' | 'delete';
  path: string;
  /** An object is sent as JSON; a string is sent as it is, labelled application/json. */
  body?: unknown;
  /** The route it attacks, by its operationId in ADMIN_ROUTE_LIST. */
  route: string;
  status?: number;
}

const BAD_IDS: Array<[string, string]> = [
  ['an id beyond BIGINT', '99999999999999999999'],
  ['an id one past BIGINT', '9223372036854775808'],
  ['an id of 2^53', '9007199254740992'],
  ['an id in exponent notation', '1e3'],
  ['an id in hexadecimal', '0x10'],
  ['a negative id', '-1'],
  ['a fractional id', '1.5'],
  ['an id with a NUL', '1%00'],
  ['an id of 5000 digits', '9'.repeat(5000)],
];

const CASES: Case[] = [
  ...BAD_IDS.flatMap(([name, id]): Case[] => [
    { name: `reprocess: ${name}`, method: 'post', path: `/admin/events/${id}/reprocess`, route: 'reprocessEvent' },
    { name: `replay: ${name}`, method: 'post', path: `/admin/deliveries/${id}/replay`, route: 'replayDelivery' },
    { name: `cancel: ${name}`, method: 'post', path: `/admin/deliveries/${id}/cancel`, route: 'cancelDelivery' },
  ]),
  // The largest id there can be is a valid id: its delivery does not exist.
  {
    name: 'replay: the largest safe integer',
    method: 'post',
    path: `/admin/deliveries/${Number.MAX_SAFE_INTEGER}/replay`,
    route: 'replayDelivery',
    status: 404,
  },
  {
    name: 'reprocess: the largest safe integer',
    method: 'post',
    path: `/admin/events/${Number.MAX_SAFE_INTEGER}/reprocess`,
    route: 'reprocessEvent',
    status: 404,
  },

  {
    name: 'remap: NUL in source.id',
    method: 'post',
    path: '/admin/meetings/remap',
    body: { ...remap, source: { id: 'a\u0000b', type: 'ZOOM' } },
    route: 'manualRemap',
  },
  {
    name: 'remap: NUL in the title',
    method: 'post',
    path: '/admin/meetings/remap',
    body: { salesforceRecords: remap.salesforceRecords, meetingDetails: { title: 'Pricing\u0000review' } },
    route: 'manualRemap',
  },
  {
    name: 'remap: an unpaired surrogate in the title',
    method: 'post',
    path: '/admin/meetings/remap',
    body: '{"salesforceRecords":{"opportunityId":"0065w000023STAmAAO"},"meetingDetails":{"title":"\\ud800"}}',
    route: 'manualRemap',
  },
  {
    name: 'remap: NUL in a Salesforce id',
    method: 'post',
    path: '/admin/meetings/remap',
    body: { ...remap, salesforceRecords: { opportunityId: '0065w000023S\u0000AmAAO' } },
    route: 'manualRemap',
  },
  { name: 'remap: NUL in a key', method: 'post', path: '/admin/meetings/remap', body: { ...remap, ['x\u0000']: 1 }, route: 'manualRemap' },
  {
    name: 'remap: a source.id of 3000 random characters',
    method: 'post',
    path: '/admin/meetings/remap',
    body: { ...remap, source: { id: randomText(3000), type: 'ZOOM' } },
    route: 'manualRemap',
  },
  {
    name: 'remap: a title of 3000 random characters',
    method: 'post',
    path: '/admin/meetings/remap',
    body: { salesforceRecords: remap.salesforceRecords, meetingDetails: { title: randomText(3000) } },
    route: 'manualRemap',
  },
  {
    name: 'remap: a title of 1000 three-byte characters',
    method: 'post',
    path: '/admin/meetings/remap',
    body: { salesforceRecords: remap.salesforceRecords, meetingDetails: { title: '会'.repeat(1000) } },
    route: 'manualRemap',
  },
  {
    name: 'remap: a source.type of 500 characters',
    method: 'post',
    path: '/admin/meetings/remap',
    body: { ...remap, source: { id: 'abc', type: 'Z'.repeat(500) } },
    route: 'manualRemap',
  },
  {
    name: 'remap: a Salesforce id of 100 characters',
    method: 'post',
    path: '/admin/meetings/remap',
    body: { ...remap, salesforceRecords: { accountId: 'A'.repeat(100) } },
    route: 'manualRemap',
  },
  {
    name: 'remap: a momentumMeetingId of 2^64',
    method: 'post',
    path: '/admin/meetings/remap',
    body: '{"salesforceRecords":{"opportunityId":"0065w000023STAmAAO"},"meetingDetails":{"momentumMeetingId":18446744073709551616}}',
    route: 'manualRemap',
  },
  {
    name: 'remap: JSON nested 10 000 levels deep',
    method: 'post',
    path: '/admin/meetings/remap',
    body: `{"source":${'['.repeat(10_000)}${']'.repeat(10_000)}}`,
    route: 'manualRemap',
  },

  { name: 'import: NUL in meeting.id', method: 'post', path: '/admin/meetings/import', body: { meeting: { id: 'a\u0000b' } }, route: 'manualImport' },
  {
    name: 'import: NUL in a field the schema passes through',
    method: 'post',
    path: '/admin/meetings/import',
    body: { meeting: { id: 'm1', notes: { text: ['ok', '\u0000'] } } },
    route: 'manualImport',
  },
  { name: 'import: NUL in a key', method: 'post', path: '/admin/meetings/import', body: { meeting: { id: 'm1', ['k\u0000']: 1 } }, route: 'manualImport' },
  {
    name: 'import: a meeting.id of 3000 characters',
    method: 'post',
    path: '/admin/meetings/import',
    body: { meeting: { id: randomText(3000) } },
    route: 'manualImport',
  },
  {
    name: 'import: a Salesforce account id that is no id',
    method: 'post',
    path: '/admin/meetings/import',
    body: { meeting: { id: 'm1', salesforceAccountId: 'x'.repeat(300) } },
    route: 'manualImport',
  },
  { name: 'import: JSON nested 100 000 levels deep', method: 'post', path: '/admin/meetings/import', body: deeplyNested(100_000), route: 'manualImport' },

  {
    name: 'bulk replay: NUL in filter.meeting (dry run)',
    method: 'post',
    path: '/admin/deliveries/replay',
    body: { filter: { meeting: 'source:ZOOM:a\u0000b' } },
    route: 'bulkReplay',
  },
  {
    name: 'bulk replay: NUL in filter.meeting (for real)',
    method: 'post',
    path: '/admin/deliveries/replay',
    body: { filter: { meeting: 'source:ZOOM:a\u0000b' }, dryRun: false },
    route: 'bulkReplay',
  },
  {
    name: 'bulk replay: a filter.meeting of 5000 characters',
    method: 'post',
    path: '/admin/deliveries/replay',
    body: { filter: { meeting: 'x'.repeat(5000) }, dryRun: false },
    route: 'bulkReplay',
  },
  {
    name: 'bulk replay: a salesforceId of 100 characters',
    method: 'post',
    path: '/admin/deliveries/replay',
    body: { filter: { salesforceId: 'A'.repeat(100) }, dryRun: false },
    route: 'bulkReplay',
  },
  {
    name: 'bulk replay: a year beyond four digits',
    method: 'post',
    path: '/admin/deliveries/replay',
    body: { filter: { since: '+275760-09-13T00:00:00Z' }, dryRun: false },
    route: 'bulkReplay',
  },
  {
    name: 'bulk replay: NUL in a key of the filter',
    method: 'post',
    path: '/admin/deliveries/replay',
    body: { filter: { ['state\u0000']: 'dead' }, dryRun: false },
    route: 'bulkReplay',
  },

  {
    name: 'add calendar: NUL in calendarId',
    method: 'post',
    path: '/admin/calendars',
    body: { calendarId: 'ana\u0000@example.com' },
    route: 'addCalendar',
  },
  {
    name: 'add calendar: a calendarId of 300 characters',
    method: 'post',
    path: '/admin/calendars',
    body: { calendarId: `${'a'.repeat(300)}@example.com` },
    route: 'addCalendar',
  },
  { name: 'remove calendar: NUL in the path', method: 'delete', path: '/admin/calendars/ana%00%40example.com', route: 'removeCalendar' },
  {
    name: 'remove calendar: an unpaired surrogate in the path',
    method: 'delete',
    path: '/admin/calendars/%ED%A0%80%40example.com',
    route: 'removeCalendar',
  },
  {
    name: 'remove calendar: 5000 characters in the path',
    method: 'delete',
    path: `/admin/calendars/${'a'.repeat(5000)}%40example.com`,
    route: 'removeCalendar',
  },
];

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

for (const { engine, skip, title } of ENGINES) {
  describe.skipIf(skip)(`admin writes with input the database would refuse ${title}`, () => {
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
}
