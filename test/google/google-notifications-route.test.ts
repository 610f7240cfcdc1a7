import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { googleCalendarRouter } from '../../routes/google-calendar.ts';
import { createChannelManager } from '../../src/google/channels.ts';
import { listenRouters } from '../support/app-harness.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { captureLogs } from '../support/log-capture.ts';
import { openRealStore } from '../support/real-store.ts';
import { storedCounts, storedJobs } from '../support/stored-rows.ts';
import { googleSetup } from './support/google-setup.ts';

const ANA = 'ana.rep@example.com';
const sample = JSON.parse(readFileSync(new URL('../fixtures/google/push-exists.json', import.meta.url), 'utf8')) as { headers: Record<string, string> };

const cleanups = cleanupAfterEach();

/** The route on a real port, a real store, and a live channel created through the fake Google. */
async function harness() {
  const g = await googleSetup();
  const { store, file, close: cleanup } = await openRealStore();
  const logs = captureLogs();
  const server = await listenRouters([googleCalendarRouter({ channels: g.channels, store, logger: logs.logger })], logs.logger);
  cleanups.push(g.close, cleanup, server.close);
  const manager = createChannelManager({ store: g.channels, client: g.client, publicBaseUrl: server.url, ttlMs: 3_600_000, logger: logs.logger });
  const { channel } = await manager.addCalendar(ANA);
  const googleCallsBefore = g.google.requests.length;
  const post = (headers: Record<string, string>) => fetch(`${server.url}/calendar/google/notifications`, { method: 'POST', headers });
  return { g, file, channel: channel!, post, logs, googleCallsSince: () => g.google.requests.slice(googleCallsBefore) };
}

describe('POST /calendar/google/notifications', () => {
  it('when Google reports a change on a live channel, then one calendar-sync job is enqueued, 200 is answered and Google is not called', async () => {
    const h = await harness();

    const status = await h.g.google.push(h.channel.id, 'exists');

    expect(status).toBe(200);
    expect(storedJobs(h.file)).toEqual([
      {
        id: 1,
        kind: 'calendar-sync',
        payload: { calendarId: ANA, channelId: h.channel.id, trigger: 'push' },
        coalesceKey: `calendar-sync:${h.channel.id}`,
        state: 'pending',
        eventId: null,
      },
    ]);
    expect(storedCounts(h.file)).toMatchObject({ messages: 0, events: 0 });
    expect(h.googleCallsSince()).toEqual([]);
  });

  it('when a burst of notifications arrives, then they coalesce into one pending sync for the channel', async () => {
    const h = await harness();

    const statuses = [
      await h.g.google.push(h.channel.id, 'exists'),
      await h.g.google.push(h.channel.id, 'not_exists'),
      await h.g.google.push(h.channel.id, 'exists'),
    ];

    expect(statuses).toEqual([200, 200, 200]);
    expect(storedJobs(h.file).filter((job) => job.state === 'pending')).toHaveLength(1);
  });

  it('when the channel says sync (its first message), then 200 and nothing is enqueued', async () => {
    const h = await harness();

    expect(await h.g.google.push(h.channel.id, 'sync')).toBe(200);
    expect(storedCounts(h.file).jobs).toBe(0);
  });

  it('when the channel id is unknown (the captured sample), then 404 and nothing is stored', async () => {
    const h = await harness();

    const response = await h.post(sample.headers);

    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: { code: 'unknown_channel', message: 'no live channel has this X-Goog-Channel-ID' } });
    expect(storedCounts(h.file)).toEqual({ messages: 0, events: 0, jobs: 0 });
  });

  it('when the token is wrong or missing, then 403 and nothing is stored', async () => {
    const h = await harness();

    const wrong = await h.g.google.push(h.channel.id, 'exists', { token: `${h.channel.token.slice(0, -1)}x` });
    const missing = await h.post({ 'x-goog-channel-id': h.channel.id, 'x-goog-resource-state': 'exists', 'x-goog-resource-id': h.channel.resourceId! });

    expect([wrong, missing.status]).toEqual([403, 403]);
    expect(storedCounts(h.file).jobs).toBe(0);
    expect(h.logs.text()).not.toContain(h.channel.token);
  });

  it('when the resource id does not belong to the channel, then 403', async () => {
    const h = await harness();

    const response = await h.post({
      'x-goog-channel-id': h.channel.id,
      'x-goog-channel-token': h.channel.token,
      'x-goog-resource-state': 'exists',
      'x-goog-resource-id': 'someone-else',
    });

    expect(response.status).toBe(403);
    expect(storedCounts(h.file).jobs).toBe(0);
  });

  it('when the channel was stopped, then its notifications are refused with 404', async () => {
    const h = await harness();
    await h.g.channels.stopChannel(h.channel.id, Date.now());

    expect(await h.g.google.push(h.channel.id, 'exists')).toBe(404);
    expect(storedCounts(h.file).jobs).toBe(0);
  });

  it('when headers are missing or the state is unknown, then 400', async () => {
    const h = await harness();

    const noId = await h.post({ 'x-goog-resource-state': 'exists' });
    const badState = await h.post({ 'x-goog-channel-id': h.channel.id, 'x-goog-channel-token': h.channel.token, 'x-goog-resource-state': 'deleted' });

    expect([noId.status, badState.status]).toEqual([400, 400]);
    expect(storedCounts(h.file).jobs).toBe(0);
  });
});
