import { afterEach, describe, expect, it } from 'vitest';

import { startGoogleScheduler } from '../../src/google/channel-scheduler.ts';
import { createChannelManager, renewalDue } from '../../src/google/channels.ts';
import { createSqlChannelStore } from '../../src/store/sql-channel-store.ts';
import { captureLogs } from '../support/log-capture.ts';
import { type GoogleSetup, googleSetup } from './support/google-setup.ts';
import { sqliteRunner } from './support/sql-runners.ts';

const ANA = 'ana.rep@example.com';
const BO = 'bo.rep@example.com';
const BASE = 'https://bridge.example.com';
const TTL_MS = 100_000;

let setup: GoogleSetup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

function managerFor(g: GoogleSetup, clock = { offset: 0 }) {
  return createChannelManager({
    store: g.channels,
    client: g.client,
    publicBaseUrl: `${BASE}/`,
    ttlMs: TTL_MS,
    logger: captureLogs().logger,
    now: () => Date.now() + clock.offset,
  });
}

describe('Google channel manager', () => {
  it('when a watched calendar has no channel, then one is created with a fresh id, a random token and our address, and stored', async () => {
    const g = (setup = await googleSetup());
    await g.channels.seedCalendars([ANA], Date.now());

    const counts = await managerFor(g).maintain();

    const [stored] = await g.channels.activeChannels();
    const watched = g.google.requestsOf('watch')[0]?.body as { id: string; token: string; address: string; params: { ttl: string } };
    expect(counts).toEqual({ created: 1, renewed: 0, stopped: 0, failed: 0 });
    expect(watched).toMatchObject({ address: `${BASE}/calendar/google/notifications`, params: { ttl: '100' } });
    expect(watched.id.length).toBeLessThanOrEqual(64);
    expect(watched.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(stored).toMatchObject({ id: watched.id, calendarId: ANA, token: watched.token, resourceId: g.google.channels.get(watched.id)?.resourceId });
    expect(stored?.expiration).toBe(g.google.channels.get(watched.id)?.expiration);
  });

  it('when the process restarts with a live channel, then no new channel is made', async () => {
    const g = (setup = await googleSetup());
    await g.channels.seedCalendars([ANA], Date.now());
    await managerFor(g).maintain();

    // A new manager over a new connection to the same database: what a restarted process has.
    const reopened = await sqliteRunner(g.db.file);
    const restarted = createChannelManager({
      store: createSqlChannelStore(reopened.runner),
      client: g.client,
      publicBaseUrl: BASE,
      ttlMs: TTL_MS,
      logger: captureLogs().logger,
    });
    const counts = await restarted.maintain();
    await reopened.close();

    expect(counts).toEqual({ created: 0, renewed: 0, stopped: 0, failed: 0 });
    expect(g.google.requestsOf('watch')).toHaveLength(1);
  });

  it('when a channel reaches 80 % of its life, then a new channel is created first and the old one is then stopped', async () => {
    const g = (setup = await googleSetup());
    const clock = { offset: 0 };
    await g.channels.seedCalendars([ANA], Date.now());
    await managerFor(g, clock).maintain();
    const [old] = await g.channels.activeChannels();

    clock.offset = 0.79 * TTL_MS;
    const early = await managerFor(g, clock).maintain();
    clock.offset = 0.81 * TTL_MS;
    const due = await managerFor(g, clock).maintain();

    const [current] = await g.channels.activeChannels();
    expect(early.renewed).toBe(0);
    expect(due).toEqual({ created: 0, renewed: 1, stopped: 0, failed: 0 });
    expect(current?.id).not.toBe(old?.id);
    expect(current?.token).not.toBe(old?.token);
    expect(g.google.requests.filter((r) => r.path !== '/token').map((r) => (r.path.endsWith('/watch') ? 'watch' : 'stop'))).toEqual(['watch', 'watch', 'stop']);
    expect(g.google.channels.get(old!.id)?.stopped).toBe(true);
    expect(await g.channels.getChannel(old!.id)).toMatchObject({ renewedAt: expect.any(Number), stoppedAt: expect.any(Number) });
  });

  it('when Google refuses the watch for one calendar, then the others still get their channels and the next round retries', async () => {
    const g = (setup = await googleSetup());
    await g.channels.seedCalendars([ANA, BO], Date.now());
    g.google.fail('watch', 503);

    const first = await managerFor(g).maintain();
    const second = await managerFor(g).maintain();

    expect(first).toEqual({ created: 1, renewed: 0, stopped: 0, failed: 1 });
    expect(second).toEqual({ created: 1, renewed: 0, stopped: 0, failed: 0 });
    expect((await g.channels.activeChannels()).map((channel) => channel.calendarId).sort()).toEqual([ANA, BO]);
  });

  it('when an operator adds and removes a calendar, then its channel is created and then stopped at Google', async () => {
    const g = (setup = await googleSetup());
    const manager = managerFor(g);

    const added = await manager.addCalendar(BO);
    const listed = await manager.list();
    const removed = await manager.removeCalendar(BO);

    expect(added).toMatchObject({ calendarId: BO, watching: true, addedBy: 'admin', channel: { calendarId: BO } });
    expect(listed.map((item) => item.channel?.id)).toEqual([added.channel?.id]);
    expect(removed).toBe(true);
    expect(await g.channels.activeChannels()).toEqual([]);
    expect(g.google.channels.get(added.channel!.id)?.stopped).toBe(true);
    expect(await manager.removeCalendar('nobody@example.com')).toBe(false);
  });

  it('renewalDue is false before 80 % of the channel life and true from it on', () => {
    const channel = { id: 'c', calendarId: ANA, token: 't', resourceId: 'r', createdAt: 1000, expiration: 2000, renewedAt: null, stoppedAt: null };

    expect([renewalDue(channel, 1799), renewalDue(channel, 1800)]).toEqual([false, true]);
  });
});

describe('Google scheduler', () => {
  it('when two instances share the store, then only the lease holder creates channels and enqueues backstop syncs', async () => {
    const g = (setup = await googleSetup());
    await g.channels.seedCalendars([ANA], Date.now());
    const enqueued: unknown[] = [];
    const jobs = { enqueue: async (batch: unknown[]) => (enqueued.push(...batch), []) };
    const options = { channels: g.channels, jobs, logger: captureLogs().logger, backstopEveryMs: 60_000, runAtStart: false };
    const first = startGoogleScheduler({ ...options, manager: managerFor(g), owner: 'instance-1' });
    const second = startGoogleScheduler({ ...options, manager: managerFor(g), owner: 'instance-2' });

    const ran = [await first.runOnce(), await second.runOnce()];
    await first.stop();
    const afterHandOver = await second.runOnce({ maintain: false });
    await second.stop();

    expect(ran).toEqual([true, false]);
    expect(g.google.requestsOf('watch')).toHaveLength(1);
    const [channel] = await g.channels.activeChannels();
    expect(afterHandOver).toBe(true);
    expect(enqueued).toEqual([
      { kind: 'calendar-sync', payload: { calendarId: ANA, channelId: channel?.id, trigger: 'backstop' }, coalesceKey: `calendar-sync:${channel?.id}` },
      { kind: 'calendar-sync', payload: { calendarId: ANA, channelId: channel?.id, trigger: 'backstop' }, coalesceKey: `calendar-sync:${channel?.id}` },
    ]);
  });
});
