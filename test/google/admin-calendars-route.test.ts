import type { RequestHandler } from 'express';
import { describe, expect, it } from 'vitest';

import { googleCalendarAdminRouter } from '../../routes/google-calendar.ts';
import { AppError } from '../../src/core/errors.ts';
import { createChannelManager } from '../../src/google/channels.ts';
import { listenRouters } from '../support/app-harness.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { captureLogs } from '../support/log-capture.ts';
import { googleSetup } from './support/google-setup.ts';

const KEY = 'admin-key-0123456789';
// Stands in for the admin API key check the admin routes use.
const authorize: RequestHandler = (req, _res, next) =>
  next(req.get('authorization') === `Bearer ${KEY}` ? undefined : new AppError('unauthorized', 'admin API key required', { status: 401 }));

const cleanups = cleanupAfterEach();

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
  const server = await listenRouters([googleCalendarAdminRouter({ manager, authorize })], logs.logger);
  cleanups.push(g.close, server.close);
  const call = (method: string, path: string, body?: unknown, key = KEY) =>
    fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  return { g, call };
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
    expect(h.g.google.channels.get(body.channel.id)?.stopped).toBe(true);
    expect(JSON.stringify(await (await h.call('GET', '/admin/calendars')).json())).not.toContain(body.channel.id);
  });

  it('when the admin key is missing, the body is wrong or the calendar unknown, then 401, 400 and 404 without Google calls', async () => {
    const h = await harness();

    const statuses = [
      (await h.call('GET', '/admin/calendars', undefined, 'wrong-key')).status,
      (await h.call('POST', '/admin/calendars', { calendarId: 'not an email' })).status,
      (await h.call('DELETE', '/admin/calendars/nobody%40example.com')).status,
    ];

    expect(statuses).toEqual([401, 400, 404]);
    expect(h.g.google.requests).toEqual([]);
  });

  it('when Google refuses the watch, then 502 says the calendar is saved for a later retry', async () => {
    const h = await harness();
    h.g.google.fail('watch', 403);

    const response = await h.call('POST', '/admin/calendars', { calendarId: 'bo.rep@example.com' });

    expect(response.status).toBe(502);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('google_watch_failed');
    expect((await h.g.channels.getCalendar('bo.rep@example.com'))?.watching).toBe(true);
  });
});
