import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { adminRouter } from '../../routes/admin.ts';
import { keyFingerprint } from '../../src/admin/api-keys.ts';
import { googleCalendarManager } from '../../src/google/calendar-manager.ts';
import { createChannelManager } from '../../src/google/channels.ts';
import { parseConfig } from '../../src/settings.ts';
import type { Store } from '../../src/store/types.ts';
import { KEY, startAdminApp } from '../admin/support/admin-app.ts';
import { listenRouters } from '../support/app-harness.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { captureLogs } from '../support/log-capture.ts';
import { googleSetup } from './support/google-setup.ts';

const cleanups = cleanupAfterEach();

/** The admin router with its real key check, its calendars managed through Google's channel manager. */
async function harness() {
  const g = await googleSetup();
  const logs = captureLogs();
  const manager = createChannelManager({
    store: g.channels,
    client: g.client,
    publicBaseUrl: 'https://bridge.example.com',
    ttlMs: 3_600_000,
    logger: logs.logger,
  });
  const config = parseConfig({ NODE_ENV: 'test', ADMIN_API_KEYS: KEY });
  // Only the calendar routes are called: the store behind the other admin routes is never reached.
  const router = adminRouter({ config, store: {} as Store, logger: logs.logger, calendars: { google: googleCalendarManager(manager) } });
  const server = await listenRouters([router], logs.logger);
  cleanups.push(g.close, server.close);
  const call = (method: string, path: string, body?: unknown, key = KEY) =>
    fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const changes = () => logs.lines().filter((line) => line.message === 'admin change');
  return { g, call, changes };
}

describe('/admin/calendars', () => {
  it('when an operator adds, lists and removes a calendar, then Google channels follow', async () => {
    const h = await harness();

    const added = await h.call('POST', '/admin/calendars', { calendarId: 'Bo.Rep@Example.com' });
    const listed = await h.call('GET', '/admin/calendars');
    const removed = await h.call('DELETE', '/admin/calendars/bo.rep%40example.com');

    expect(added.status).toBe(201);
    const body = (await added.json()) as { calendarId: string; channel: { id: string } };
    expect(body).toMatchObject({ calendarId: 'bo.rep@example.com', watching: true, addedBy: 'admin', hasSyncToken: false });
    expect(await listed.json()).toEqual({
      calendars: [expect.objectContaining({ calendarId: 'bo.rep@example.com', channel: expect.objectContaining({ id: body.channel.id }) })],
    });
    expect(removed.status).toBe(204);
    expect(await removed.text()).toBe('');
    expect(h.g.google.channels.get(body.channel.id)?.stopped).toBe(true);
    expect(JSON.stringify(await (await h.call('GET', '/admin/calendars')).json())).not.toContain(body.channel.id);
  });

  it('when an operator adds and removes a calendar, then each change is logged with the key fingerprint, and the list is not', async () => {
    const h = await harness();

    await h.call('POST', '/admin/calendars', { calendarId: 'bo.rep@example.com' });
    await h.call('GET', '/admin/calendars');
    await h.call('DELETE', '/admin/calendars/bo.rep%40example.com');

    expect(h.changes()).toEqual([
      expect.objectContaining({ level: 'info', action: 'addCalendar', keyFingerprint: keyFingerprint(KEY), calendarId: 'bo.rep@example.com' }),
      expect.objectContaining({ level: 'info', action: 'removeCalendar', keyFingerprint: keyFingerprint(KEY), calendarId: 'bo.rep@example.com' }),
    ]);
  });

  it('when the admin key is missing, the body is wrong or the calendar unknown, then 401, 400 and 404 without Google calls or changes logged', async () => {
    const h = await harness();

    const statuses = [
      (await h.call('GET', '/admin/calendars', undefined, 'wrong-key')).status,
      (await h.call('POST', '/admin/calendars', { calendarId: 'not an email' })).status,
      (await h.call('DELETE', '/admin/calendars/nobody%40example.com')).status,
    ];

    expect(statuses).toEqual([401, 400, 404]);
    expect(h.g.google.requests).toEqual([]);
    expect(h.changes()).toEqual([]);
  });

  it('when Google refuses the watch, then 502 says the calendar is saved for a later retry, its lastError says why, and the change is logged', async () => {
    const h = await harness();
    h.g.google.fail('watch', 403);

    const response = await h.call('POST', '/admin/calendars', { calendarId: 'bo.rep@example.com' });

    expect(response.status).toBe(502);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('google_watch_failed');
    expect(await h.g.channels.getCalendar('bo.rep@example.com')).toMatchObject({ watching: true, lastError: 'events.watch: HTTP 403 scripted failure' });
    expect(await (await h.call('GET', '/admin/calendars')).json()).toEqual({
      calendars: [
        expect.objectContaining({ calendarId: 'bo.rep@example.com', channel: null, lastSyncAt: null, lastError: 'events.watch: HTTP 403 scripted failure' }),
      ],
    });
    expect(h.changes()).toEqual([expect.objectContaining({ action: 'addCalendar', calendarId: 'bo.rep@example.com', watchRefused: true })]);
  });

  it('when Google is not configured, then /admin/calendars is no route (404) and the OpenAPI document does not list it', async () => {
    const admin = await startAdminApp();
    cleanups.push(admin.close);

    const list = await admin.get('/admin/calendars');
    const remove = await request(admin.app).delete('/admin/calendars/bo.rep%40example.com').set('Authorization', `Bearer ${KEY}`);
    const document = await admin.get('/admin/openapi.json');

    expect([list.status, remove.status]).toEqual([404, 404]);
    expect(list.body.error.code).toBe('not_found');
    expect(Object.keys(document.body.paths)).not.toContain('/admin/calendars');
  });
});
