import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { openStore } from '../../src/store/open-store.ts';
import type { Job, Store } from '../../src/store/types.ts';
import { type FakeMomentum, startFakeMomentum } from '../fakes/fake-momentum.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { TEST_DATABASE_URL, type TestDatabase, testDatabase } from '../support/real-store.ts';
import { describeEachEngine, expectSettled, waitSettled } from '../support/stored-state.ts';
import type { TestBridge } from '../support/test-bridge.ts';
import { waitFor } from '../support/wait-for.ts';
import { KEY } from './support/admin-app.ts';
import { type IdleAdminBridge, startAdminBridge, startIdleAdminBridge } from './support/admin-bridge.ts';
import { deadRemaps } from './support/seed.ts';

/** As many dead deliveries as the report that two runs sent twice: more than one batch of a bulk run. */
const DELIVERIES = 700;

const cleanups = cleanupAfterEach();

// Fewer requests in flight than ADMIN_AUTH_FAILURE_LIMIT's default 20: the limiter counts a request
// when it arrives and forgives it only once it answered, so a larger burst from one address gets 429.
const RACED_EVERY = 8;
const meetings = (prefix: string, count: number) => Array.from({ length: count }, (_, index) => `${prefix}-${index}`);
const bulkReplay = (bridge: { url: string }) =>
  request(bridge.url)
    .post('/admin/deliveries/replay')
    .set('Authorization', `Bearer ${KEY}`)
    .send({ filter: { state: 'dead' }, dryRun: false });
const singleReplay = (bridge: { url: string }, id: number) => request(bridge.url).post(`/admin/deliveries/${id}/replay`).set('Authorization', `Bearer ${KEY}`);

async function momentumStarted(): Promise<FakeMomentum> {
  const momentum = await startFakeMomentum();
  cleanups.push(() => momentum.close());
  return momentum;
}

/** Dead deliveries stored before any bridge runs, so no worker sends an original. */
async function seeded(database: TestDatabase, meetingIds: string[]): Promise<Job[]> {
  const store = await openStore(database.url);
  try {
    return await deadRemaps(store, meetingIds);
  } finally {
    await store.close();
  }
}

async function bridgeOn(momentum: FakeMomentum, database: TestDatabase): Promise<TestBridge> {
  const bridge = await startAdminBridge({ momentum, retrySchedule: [0], database, momentumRateLimit: 'off' });
  cleanups.push(() => bridge.stop());
  return bridge;
}

/** Idle until the race is over: a replay that already ended may rightly be replayed again. startBridge starts its worker at once. */
async function idleBridgeOn(momentum: FakeMomentum, database: TestDatabase): Promise<IdleAdminBridge> {
  const bridge = await startIdleAdminBridge({ momentum, retrySchedule: [0], database, momentumRateLimit: 'off' });
  cleanups.push(() => bridge.stop());
  return bridge;
}

/**
 * Every dead delivery has exactly one replay, every replay succeeded, and Momentum received each
 * meeting exactly once (the originals were never sent: they were seeded dead). In the database:
 * nothing left pending or running, nothing retried, and the dead jobs are exactly the seeded ones.
 */
async function expectEachReplayedOnce(store: Store, databaseUrl: string, momentum: FakeMomentum, dead: Job[]): Promise<void> {
  const replays = (await store.listJobs({ kinds: ['remap'], order: 'oldest', limit: 10 * dead.length })).filter((job) => job.replayOf !== null);
  expect(replays.map((replay) => replay.replayOf).sort((a, b) => a! - b!)).toEqual(dead.map((job) => job.id));
  await waitFor('every replay to succeed', async () => (await store.countJobs({ kinds: ['remap'], states: ['succeeded'] })) === dead.length, 60_000);
  const sent = momentum.requests.map((call) => (call.body as { source: { id: string } }).source.id).sort();
  const expected = dead.map((job) => (job.payload as { request: { source: { id: string } } }).request.source.id).sort();
  expect(sent).toEqual(expected);
  await waitSettled(databaseUrl, 60_000);
  const jobs = await expectSettled(databaseUrl, { deadKinds: ['remap'] });
  expect(jobs.filter((job) => job.state === 'dead').map((job) => job.id)).toEqual(dead.map((job) => job.id));
  expect(jobs.filter((job) => job.state === 'succeeded')).toHaveLength(dead.length);
  expect(jobs).toHaveLength(2 * dead.length);
}

/** Each single replay was accepted with the delivery's one replay, or refused (409) naming it. */
async function expectSinglesAgree(store: Store, raced: Job[], singles: request.Response[]): Promise<void> {
  const replays = (await store.listJobs({ kinds: ['remap'], limit: 10_000 })).filter((job) => job.replayOf !== null);
  const replayOfOriginal = new Map(replays.map((replay) => [replay.replayOf, replay.id]));
  const seen = singles.map((single) =>
    single.status === 202
      ? { status: 202, replayId: single.body.delivery.id }
      : { status: single.status, code: single.body.error?.code, replayId: single.body.error?.details?.replayId },
  );
  const expected = raced.map((job, index) =>
    seen[index]!.status === 202
      ? { status: 202, replayId: replayOfOriginal.get(job.id) }
      : { status: 409, code: 'replay_in_progress', replayId: replayOfOriginal.get(job.id) },
  );
  expect(seen).toEqual(expected);
}

describeEachEngine('concurrent replays on one bridge', (engine) => {
  const database = () => {
    const db = testDatabase(engine, 'concurrent-replays');
    cleanups.push(db.drop);
    return db;
  };

  it(`when two bulk replays of the same ${DELIVERIES} dead deliveries are sent at once, then each delivery is replayed and sent exactly once and the replayed counts add up`, async () => {
    const momentum = await momentumStarted();
    const db = database();
    const dead = await seeded(db, meetings(`${engine}-bulk`, DELIVERIES));
    const bridge = await bridgeOn(momentum, db);

    const answers = await Promise.all([bulkReplay(bridge), bulkReplay(bridge)]);

    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect(answers.map((answer) => answer.body.replayed as number).reduce((sum, n) => sum + n, 0)).toBe(DELIVERIES);
    await expectEachReplayedOnce(await bridge.store(), db.url, momentum, dead);
  }, 90_000);

  it('when single replays race a bulk replay of the same deliveries, then each delivery gets one replay: a single replay either made it or is refused naming it', async () => {
    const momentum = await momentumStarted();
    const db = database();
    const dead = await seeded(db, meetings(`${engine}-race`, 120));
    const bridge = await idleBridgeOn(momentum, db);
    const raced = dead.filter((_, index) => index % RACED_EVERY === 0);

    const [bulk, ...singles] = await Promise.all([bulkReplay(bridge), ...raced.map((job) => singleReplay(bridge, job.id))]);

    await expectSinglesAgree(await bridge.store(), raced, singles);
    expect(bulk!.body.replayed + singles.filter((single) => single.status === 202).length).toBe(dead.length);
    bridge.startWorker();
    await expectEachReplayedOnce(await bridge.store(), db.url, momentum, dead);
  }, 90_000);
});

describe.skipIf(!TEST_DATABASE_URL)(
  `concurrent replays on two bridges sharing one PostgreSQL schema${TEST_DATABASE_URL ? '' : ' (skipped: TEST_DATABASE_URL is unset)'}`,
  () => {
    const database = () => {
      const db = testDatabase('postgres', 'replays');
      cleanups.push(db.drop);
      return db;
    };

    it(`when two bulk replays of the same ${DELIVERIES} dead deliveries are sent at once to two bridges, then each delivery is replayed and sent exactly once and the replayed counts add up`, async () => {
      const momentum = await momentumStarted();
      const db = database();
      const dead = await seeded(db, meetings('pg-bulk', DELIVERIES));
      const [first, second] = [await bridgeOn(momentum, db), await bridgeOn(momentum, db)];

      const answers = await Promise.all([bulkReplay(first!), bulkReplay(second!)]);

      expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
      expect(answers.map((answer) => answer.body.replayed as number).reduce((sum, n) => sum + n, 0)).toBe(DELIVERIES);
      await expectEachReplayedOnce(await first!.store(), db.url, momentum, dead);
    }, 90_000);

    it('when single replays sent to one bridge race a bulk replay sent to the other, then each delivery gets one replay: a single replay either made it or is refused naming it', async () => {
      const momentum = await momentumStarted();
      const db = database();
      const dead = await seeded(db, meetings('pg-race', 120));
      const [first, second] = [await idleBridgeOn(momentum, db), await idleBridgeOn(momentum, db)];
      const raced = dead.filter((_, index) => index % RACED_EVERY === 0);

      const [bulk, ...singles] = await Promise.all([bulkReplay(first!), ...raced.map((job) => singleReplay(second!, job.id))]);

      await expectSinglesAgree(await first!.store(), raced, singles);
      expect(bulk!.body.replayed + singles.filter((single) => single.status === 202).length).toBe(dead.length);
      first!.startWorker();
      second!.startWorker();
      await expectEachReplayedOnce(await first!.store(), db.url, momentum, dead);
    }, 90_000);
  },
);
