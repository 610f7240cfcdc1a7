import { afterEach, describe, expect, it } from 'vitest';

import { statsSchema } from '../../src/admin/response-schemas.ts';
import { createPacer, type Pacer } from '../../src/jobs/pacer.ts';
import { JOB_PRIORITY } from '../../src/store/types.ts';
import { type AdminApp, startAdminApp } from './support/admin-app.ts';
import { deadRemap, pendingJob, remapJob } from './support/seed.ts';

describe('GET /admin/stats', () => {
  let harness: AdminApp | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('when deliveries exist, then it counts them by kind and state, ages the oldest pending, counts dead in 24 h, pending per priority class, and shows the Momentum budget', async () => {
    let pacer: Pacer | undefined;
    harness = await startAdminApp({
      momentumRate: (store) => {
        pacer = createPacer(store, [{ key: 'momentum', limit: { requests: 100, windowMs: 900_000 } }]);
        return { key: 'momentum', pacer };
      },
    });
    await deadRemap(harness.store, 'evt-1');
    const pending = await pendingJob(harness.store, remapJob('evt-2'));
    await harness.store.enqueue([{ kind: 'import', payload: { request: { meeting: {} } }, runAt: Date.now() + 3_600_000, priority: JOB_PRIORITY.bulk }]);
    const blockedUntil = Date.now() + 60_000;
    await pacer!.block('momentum', blockedUntil);

    const response = await harness.get('/admin/stats');

    expect(response.status).toBe(200);
    expect(statsSchema.parse(response.body)).toEqual(response.body);
    expect(response.body.counts).toEqual([
      { kind: 'import', state: 'pending', count: 1 },
      { kind: 'remap', state: 'dead', count: 1 },
      { kind: 'remap', state: 'pending', count: 1 },
    ]);
    expect(response.body.deadLast24h).toEqual([{ kind: 'remap', count: 1 }]);
    const remapOldest = response.body.oldestPending.find((entry: { kind: string }) => entry.kind === 'remap');
    expect(remapOldest.createdAt).toBe(new Date(pending.createdAt).toISOString());
    expect(remapOldest.ageMs).toBe(Date.parse(response.body.at) - pending.createdAt);
    expect(response.body.pendingByPriority).toEqual([
      { kind: 'remap', priority: 'live', count: 1 },
      { kind: 'import', priority: 'bulk', count: 1 },
    ]);
    expect(response.body.rateLimit).toEqual({
      key: 'momentum',
      tokens: 0,
      capacity: 100,
      windowMs: 900_000,
      used: 0,
      nextFreeAt: new Date(blockedUntil).toISOString(),
      blockedUntil: new Date(blockedUntil).toISOString(),
    });
    // Both pending deliveries fit in the budget: they go together the moment the block ends.
    expect(response.body.quota).toEqual({
      limit: 100,
      windowSeconds: 900,
      usedInWindow: 0,
      remaining: 0,
      nextSlotAt: new Date(blockedUntil).toISOString(),
      blockedUntil: new Date(blockedUntil).toISOString(),
      backlog: 2,
      etaSeconds: (blockedUntil - Date.parse(response.body.at)) / 1000,
    });
  });

  it('when the budget has room for the whole backlog, then the backlog goes now: etaSeconds is 0, and 0 with no backlog at all', async () => {
    harness = await startAdminApp({
      momentumRate: (store) => ({ key: 'momentum', pacer: createPacer(store, [{ key: 'momentum', limit: { requests: 3, windowMs: 60_000 } }]) }),
    });
    const empty = await harness.get('/admin/stats').expect(200);
    await pendingJob(harness.store, remapJob('evt-1'));
    await pendingJob(harness.store, remapJob('evt-2'));
    await harness.store.enqueue([{ kind: 'map-event', payload: { eventId: 1 }, runAt: Date.now() + 3_600_000 }]);

    const response = await harness.get('/admin/stats').expect(200);

    expect(empty.body.quota).toMatchObject({ usedInWindow: 0, remaining: 3, backlog: 0, etaSeconds: 0 });
    expect(response.body.quota).toEqual({
      limit: 3,
      windowSeconds: 60,
      usedInWindow: 0,
      remaining: 3,
      nextSlotAt: expect.any(String),
      blockedUntil: null,
      backlog: 2,
      etaSeconds: 0,
    });
  });

  it('when pacing is off or not wired, then rateLimit is null, quota is off and an empty store has empty stats', async () => {
    harness = await startAdminApp();

    const response = await harness.get('/admin/stats');

    expect(response.status).toBe(200);
    expect(statsSchema.parse(response.body)).toEqual(response.body);
    expect(response.body).toMatchObject({ counts: [], oldestPending: [], deadLast24h: [], rateLimit: null, quota: { off: true } });
  });

  it('when a query parameter is given, then 400 (stats take none)', async () => {
    harness = await startAdminApp();

    expect((await harness.get('/admin/stats?window=1h')).status).toBe(400);
  });
});
