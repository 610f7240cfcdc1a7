import { type FakeGoogle, startFakeGoogle } from '../../fakes/fake-google.ts';
import { type FakeMomentum, type RecordedRequest, startFakeMomentum } from '../../fakes/fake-momentum.ts';
import type { Cleanup } from '../../support/cleanups.ts';
import { type Engine, openRealStore, type RealStore } from '../../support/real-store.ts';
import { queryRows } from '../../support/stored-state.ts';
import type { TestBridge } from '../../support/test-bridge.ts';
import { waitFor } from '../../support/wait-for.ts';
import { startCalendarBridge } from './calendar-bridge.ts';
import { type ClockedCalendarBridge, startClockedCalendarBridge } from './clocked-calendar-bridge.ts';
import { activeChannelIds } from './google-state.ts';
import { TEST_SERVICE_ACCOUNT, testKeyPair } from './service-account-key.ts';

/** The calendar the bridges watch (GOOGLE_CALENDAR_IDS) and its owner. */
export const ANA = 'ana.rep@example.com';
/** The admin API key the bridges take (GET /admin/deliveries). */
export const CALENDAR_ADMIN_KEY = 'calendar-e2e-admin-key-0123';

/** A fake Google and a fake Momentum around a database of the test's own on `engine`, and the bridges started on it. */
export interface CalendarWorld {
  engine: Engine;
  database: RealStore;
  google: FakeGoogle;
  momentum: FakeMomentum;
  bridges: Array<{ url: string; stop(): Promise<void> }>;
}

export async function calendarWorld(engine: Engine, cleanups: Cleanup[]): Promise<CalendarWorld> {
  const database = await openRealStore(engine, 'calendar_e2e');
  cleanups.push(database.close);
  const google = await startFakeGoogle({ serviceAccountEmail: TEST_SERVICE_ACCOUNT, publicKeyPem: testKeyPair().publicKeyPem, pageSize: 2 });
  const momentum = await startFakeMomentum();
  const w: CalendarWorld = { engine, database, google, momentum, bridges: [] };
  cleanups.push(google.close, momentum.close, async () => {
    for (const bridge of w.bridges.splice(0)) await bridge.stop();
  });
  return w;
}

/**
 * The whole bridge (startBridge) on the world's database, once its first round is done (as at
 * start-up: a channel made and stored, a sync of the calendar enqueued).
 */
export async function startWatching(w: CalendarWorld, env: Record<string, string> = {}): Promise<TestBridge> {
  const bridge = await startCalendarBridge({
    google: w.google,
    momentum: w.momentum,
    calendars: [ANA],
    database: w.database,
    env: { ADMIN_API_KEYS: CALENDAR_ADMIN_KEY, ...env },
  });
  w.bridges.push(bridge);
  await waitFor('the first round of channel upkeep', async () => (await activeChannelIds(w.database.url)).length > 0 && (await syncJobs(w)) > 0);
  return bridge;
}

const syncJobs = async (w: CalendarWorld) => (await queryRows(w.database.url, `SELECT id FROM jobs WHERE kind = 'calendar-sync'`)).length;

/** The bridge on a clock the test moves, driven round by round (clocked-calendar-bridge.ts says why it is not startBridge). */
export async function startClocked(w: CalendarWorld, options: { now: () => number; port?: number }): Promise<ClockedCalendarBridge> {
  const bridge = await startClockedCalendarBridge({ store: w.database.store, google: w.google, momentum: w.momentum, calendars: [ANA], ...options });
  w.bridges.push(bridge);
  return bridge;
}

export const remaps = (momentum: FakeMomentum): RecordedRequest[] => momentum.requests.filter((request) => request.path === '/v1/meeting/remap');
