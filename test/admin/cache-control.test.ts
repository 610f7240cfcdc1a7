import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';

import type { CalendarClient } from '../../src/google/calendar-client.ts';
import { createChannelManager } from '../../src/google/channels.ts';
import { type EngineApp, startEngineApp } from '../support/app-harness.ts';
import { KEY } from './support/admin-app.ts';
import { pendingJob, remapJob } from './support/seed.ts';

/*
 * Every /admin API answer says `Cache-Control: no-store`, the errors too: they hold payloads,
 * delivery history and who changed what, and must not outlive the key that fetched them in a
 * browser or proxy cache. The console's static files keep their own revalidation (`no-cache`).
 */

const noGoogle: CalendarClient = {
  watch: () => Promise.reject(new Error('Google must not be called')),
  stop: () => Promise.reject(new Error('Google must not be called')),
  listEvents: () => Promise.reject(new Error('Google must not be called')),
  close: async () => undefined,
};

let harness: EngineApp | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const start = async (env: Record<string, string> = {}) => {
  harness = await startEngineApp('sqlite', {
    env: { ADMIN_API_KEYS: KEY, ADMIN_AUTH_FAILURE_LIMIT: 'off', ...env },
    deps: (store, logger) => ({
      googleManager: createChannelManager({ store: store.channels, client: noGoogle, publicBaseUrl: 'https://bridge.example.com', ttlMs: 3_600_000, logger }),
    }),
  });
  return harness;
};

describe('Cache-Control on /admin', () => {
  it('when admin API calls succeed or fail in any way, then every answer carries Cache-Control: no-store', async () => {
    const h = await start();
    const pending = await pendingJob(h.store, remapJob('evt-pending'));
    const withKey = (call: request.Test) => call.set('Authorization', `Bearer ${KEY}`);
    const calls: Array<[string, number, request.Test]> = [
      ['stats', 200, withKey(request(h.app).get('/admin/stats'))],
      ['the OpenAPI document', 200, withKey(request(h.app).get('/admin/openapi.json'))],
      ['a delivery', 200, withKey(request(h.app).get(`/admin/deliveries/${pending.id}`))],
      [
        'a manual remap',
        202,
        withKey(
          request(h.app)
            .post('/admin/meetings/remap')
            .send({ source: { id: 'abc', type: 'ZOOM' }, salesforceRecords: { opportunityId: '0065w000023STAmAAO' } }),
        ),
      ],
      ['the watched calendars', 200, withKey(request(h.app).get('/admin/calendars'))],
      ['no key', 401, request(h.app).get('/admin/stats')],
      ['no key on a path that does not exist', 401, request(h.app).get('/admin/no-such-thing')],
      ['a missing delivery', 404, withKey(request(h.app).get('/admin/deliveries/999'))],
      ['a replay of a pending delivery', 409, withKey(request(h.app).post(`/admin/deliveries/${pending.id}/replay`))],
      ['an invalid body', 400, withKey(request(h.app).post('/admin/meetings/remap').send({ salesforceRecords: {} }))],
      ['a body that is not JSON', 400, withKey(request(h.app).post('/admin/meetings/remap').set('Content-Type', 'application/json').send('{"nope'))],
      [
        'a body over 1 MB',
        413,
        withKey(
          request(h.app)
            .post('/admin/meetings/import')
            .send({ meeting: { title: 'x'.repeat(1_100_000) } }),
        ),
      ],
      ['a body that is not JSON by its type', 415, withKey(request(h.app).post('/admin/meetings/import').set('Content-Type', 'text/plain').send('{}'))],
      ['an invalid calendar', 400, withKey(request(h.app).post('/admin/calendars').send({ calendarId: 'not an email' }))],
    ];

    for (const [what, status, call] of calls) {
      const response = await call;

      expect(response.status, what).toBe(status);
      expect(response.headers['content-type'], what).toMatch(/^application\/json/);
      expect(response.headers['cache-control'], what).toBe('no-store');
    }
  });

  it('when an address is over ADMIN_AUTH_FAILURE_LIMIT, then its 429 carries no-store too', async () => {
    const h = await start({ ADMIN_AUTH_FAILURE_LIMIT: '1/15m' });
    await request(h.app).get('/admin/stats').set('Authorization', 'Bearer wrong');

    const response = await request(h.app).get('/admin/stats').set('Authorization', `Bearer ${KEY}`);

    expect(response.status).toBe(429);
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('when the admin API is disabled, then its 503 carries no-store too', async () => {
    const h = await start({ ADMIN_API_KEYS: '' });

    const response = await request(h.app).get('/admin/deliveries').set('Authorization', `Bearer ${KEY}`);

    expect(response.status).toBe(503);
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('when the console page and its assets are fetched, then they keep no-cache (revalidated, not no-store)', async () => {
    const h = await start();

    const page = await request(h.app).get('/admin/');
    const script = await request(h.app).get('/admin/assets/main.js');

    expect([page.status, script.status]).toEqual([200, 200]);
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(script.headers['cache-control']).toBe('no-cache');
  });
});
