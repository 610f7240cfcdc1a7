import request from 'supertest';
import { afterEach, expect, it } from 'vitest';

import { type FakeMomentum, startFakeMomentum } from '../fakes/fake-momentum.ts';
import { type TestDatabase, testDatabase } from '../support/real-store.ts';
import { describeEachEngine, expectSettled, queryRows, storedJobStates } from '../support/stored-state.ts';
import type { TestBridge } from '../support/test-bridge.ts';
import { waitFor } from '../support/wait-for.ts';
import { KEY } from './support/admin-app.ts';
import { startAdminBridge } from './support/admin-bridge.ts';

const WINDOW_MS = 10_000;
const remapBody = (id: string) => ({ source: { id, type: 'GOOGLE_CALENDAR' }, salesforceRecords: { opportunityId: '0065w000023STAmAAO' } });
const iso = (ms: number) => new Date(ms).toISOString();

describeEachEngine('GET /admin/stats quota on a bridge pacing Momentum', (engine) => {
  const closes: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closes.splice(0).reverse()) await close();
  });

  async function start(momentumRateLimit: string): Promise<{ bridge: TestBridge; momentum: FakeMomentum }> {
    const momentum = await startFakeMomentum();
    closes.push(() => momentum.close());
    const database: TestDatabase = testDatabase(engine, 'quota');
    closes.push(() => database.drop());
    const bridge = await startAdminBridge({ momentum, retrySchedule: [0], momentumRateLimit, database });
    closes.push(() => bridge.stop());
    return { bridge, momentum };
  }
  const admin = (bridge: TestBridge) => ({
    get: (path: string) => request(bridge.url).get(path).set('Authorization', `Bearer ${KEY}`),
    post: (path: string, body: object) => request(bridge.url).post(path).set('Authorization', `Bearer ${KEY}`).send(body),
  });

  it('when 2 calls per 10 s have gone and 3 remaps wait, then the quota shows the window spent, the backlog of 3 and when the last of them goes', async () => {
    const { bridge, momentum } = await start('2/10s');
    const ids: number[] = [];
    for (const id of ['q-1', 'q-2', 'q-3', 'q-4', 'q-5'])
      ids.push((await admin(bridge).post('/admin/meetings/remap', remapBody(id)).expect(202)).body.delivery.id);
    const store = await bridge.store();
    const states = async () => Promise.all(ids.map(async (id) => (await store.getJob(id))?.state));
    await waitFor('two remaps to reach Momentum', async () => (await states()).filter((state) => state === 'succeeded').length === 2);
    // The two calls' slots, dated when their answers came back (the pacer's own log).
    const { times } = await store.rateState('momentum', 2, WINDOW_MS);

    const response = await admin(bridge).get('/admin/stats').expect(200);

    const at = Date.parse(response.body.at);
    expect(times).toHaveLength(2);
    expect(momentum.requests).toHaveLength(2);
    expect((await states()).filter((state) => state === 'pending')).toHaveLength(3);
    expect(response.body.quota).toEqual({
      limit: 2,
      windowSeconds: 10,
      usedInWindow: 2,
      remaining: 0,
      nextSlotAt: iso(times[0]! + WINDOW_MS),
      blockedUntil: null,
      backlog: 3,
      // Two go as the two slots leave the window (times + 10 s); the third a window after the first of those.
      etaSeconds: (times[0]! + 2 * WINDOW_MS - at) / 1000,
    });
    expect(response.body.quota.etaSeconds).toBeGreaterThan(10);
    expect(response.body.quota.etaSeconds).toBeLessThanOrEqual(20);
    expect(response.body.rateLimit).toMatchObject({ used: 2, tokens: 0, capacity: 2, windowMs: WINDOW_MS, nextFreeAt: iso(times[0]! + WINDOW_MS) });
    // Stored: the two sent once each with their slots in the pacer's log; the three waiting never tried, nothing dead.
    expect((await storedJobStates(bridge.databaseUrl)).map((job) => [job.id, job.state, job.attempts])).toEqual(
      ids.map((id, index) => (index < 2 ? [id, 'succeeded', 1] : [id, 'pending', 0])),
    );
    expect(await queryRows(bridge.databaseUrl, `SELECT COUNT(*) AS n FROM rate_slots WHERE key = 'momentum'`)).toEqual([{ n: 2 }]);
  });

  it('when pacing is off (MOMENTUM_RATE_LIMIT=off), then quota is {off: true} and rateLimit null', async () => {
    const { bridge } = await start('off');

    const response = await admin(bridge).get('/admin/stats').expect(200);

    expect(response.body.quota).toEqual({ off: true });
    expect(response.body.rateLimit).toBeNull();
    expect(await expectSettled(bridge.databaseUrl)).toEqual([]);
  });
});
