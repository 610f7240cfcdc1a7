import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import type { Channel, ChannelStore } from '../../src/store/channel-store.ts';
import { createSqlChannelStore } from '../../src/store/sql-channel-store.ts';
import { TEST_DATABASE_URL } from '../support/real-store.ts';
import { postgresRunner, sqliteRunner, type TestRunner } from './support/sql-runners.ts';

const engines: Array<[string, () => Promise<TestRunner>]> = [['sqlite', () => sqliteRunner()]];
if (TEST_DATABASE_URL !== undefined) engines.push(['postgres', () => postgresRunner()]);

const channel = (overrides: Partial<Channel> = {}): Channel => ({
  id: 'bridge-1',
  calendarId: 'ana@example.com',
  token: 'secret-token',
  resourceId: 'res-1',
  expiration: 1_700_000_000_000 + 7 * 86_400_000,
  createdAt: 1_700_000_000_000,
  renewedAt: null,
  stoppedAt: null,
  ...overrides,
});

describe.each(engines)('SQL channel store on %s', (_engine, open) => {
  let db: TestRunner;
  let store: ChannelStore;
  beforeEach(async () => {
    db = await open();
    store = createSqlChannelStore(db.runner);
  });
  afterEach(async () => db.close());

  it('when a channel is saved, then it reads back whole with numeric times and is active', async () => {
    await store.saveChannel(channel());

    expect(await store.getChannel('bridge-1')).toEqual(channel());
    expect(await store.activeChannels()).toEqual([channel()]);
    expect(await store.getChannel('bridge-unknown')).toBeUndefined();
  });

  it('when a channel is renewed or stopped, then it is no longer active but still readable', async () => {
    await store.saveChannel(channel({ id: 'old' }));
    await store.saveChannel(channel({ id: 'stopped', createdAt: 1_700_000_000_001 }));
    await store.saveChannel(channel({ id: 'live', createdAt: 1_700_000_000_002 }));

    await store.markRenewed('old', 1_700_000_100_000);
    await store.stopChannel('stopped', 1_700_000_100_000);

    expect((await store.activeChannels()).map((item) => item.id)).toEqual(['live']);
    expect(await store.getChannel('old')).toMatchObject({ renewedAt: 1_700_000_100_000, stoppedAt: null });
    expect(await store.getChannel('stopped')).toMatchObject({ stoppedAt: 1_700_000_100_000 });
  });

  it('when config calendars are seeded, then new ones are watched and one an operator stopped stays stopped', async () => {
    await store.watchCalendar('bo@example.com', 'admin', 1);
    await store.unwatchCalendar('bo@example.com', 2);

    await store.seedCalendars(['ana@example.com', 'bo@example.com'], 3);

    expect(await store.listCalendars()).toEqual([
      { calendarId: 'ana@example.com', watching: true, addedBy: 'config', syncToken: null, lastSyncAt: null, lastError: null, updatedAt: 3 },
      { calendarId: 'bo@example.com', watching: false, addedBy: 'admin', syncToken: null, lastSyncAt: null, lastError: null, updatedAt: 2 },
    ]);
  });

  it('when a sync token is set, then it is kept across re-watching and can be dropped', async () => {
    await store.seedCalendars(['ana@example.com'], 1);
    await store.setSyncToken('ana@example.com', 'token-1', 2);
    await store.watchCalendar('ana@example.com', 'admin', 3);
    expect((await store.getCalendar('ana@example.com'))?.syncToken).toBe('token-1');

    await store.setSyncToken('ana@example.com', null, 4);

    expect(await store.getCalendar('ana@example.com')).toMatchObject({ syncToken: null, watching: true, updatedAt: 4 });
  });

  it('when a sync fails and a later one succeeds, then the error is kept with the last good time, and cleared by the next success', async () => {
    await store.seedCalendars(['ana@example.com'], 1);
    await store.recordCalendarOutcome('ana@example.com', { syncedAt: 2 }, 2);
    await store.recordCalendarOutcome('ana@example.com', { error: 'events.list: HTTP 403 Forbidden' }, 3);
    const failed = await store.getCalendar('ana@example.com');

    await store.recordCalendarOutcome('ana@example.com', { syncedAt: 4 }, 4);

    expect(failed).toMatchObject({ lastSyncAt: 2, lastError: 'events.list: HTTP 403 Forbidden', updatedAt: 3 });
    expect(await store.getCalendar('ana@example.com')).toMatchObject({ lastSyncAt: 4, lastError: null, updatedAt: 4 });
  });

  it('when two owners race for the lease, then only one holds it until it expires or is released', async () => {
    const [a, b] = await Promise.all([store.tryLease('google-channels', 'a', 1000, 10_000), store.tryLease('google-channels', 'b', 1000, 10_000)]);
    expect([a, b].filter(Boolean)).toHaveLength(1);
    const holder = a ? 'a' : 'b';
    const other = a ? 'b' : 'a';

    expect(await store.tryLease('google-channels', other, 1000, 10_500)).toBe(false);
    expect(await store.tryLease('google-channels', holder, 1000, 10_500)).toBe(true); // extends to 11_500
    expect(await store.tryLease('google-channels', other, 1000, 11_400)).toBe(false);
    expect(await store.tryLease('google-channels', other, 1000, 11_500)).toBe(true); // expired: taken over

    await store.releaseLease('google-channels', other);
    expect(await store.tryLease('google-channels', holder, 1000, 11_600)).toBe(true);
  });
});
