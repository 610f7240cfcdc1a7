import { afterEach, describe, expect, it } from 'vitest';

import { type AdminApp, startAdminApp } from './support/admin-app.ts';
import { deadRemap, remapJob, settledJob } from './support/seed.ts';

const allJobs = (harness: AdminApp) => harness.store.listJobs({ limit: 1000, order: 'oldest' });

describe('POST /admin/deliveries/replay (bulk)', () => {
  let harness: AdminApp | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('when a dry run is asked for, then it answers how many would be replayed and a sample, and enqueues nothing', async () => {
    harness = await startAdminApp();
    const dead = [await deadRemap(harness.store, 'evt-1'), await deadRemap(harness.store, 'evt-2')];
    await settledJob(harness.store, remapJob('evt-3'), { state: 'succeeded' });
    const before = await allJobs(harness);

    const response = await harness.post('/admin/deliveries/replay', { filter: { state: 'dead' }, dryRun: true });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ dryRun: true, matched: 2, replayed: 2, capped: false });
    expect(response.body.sample.map((item: { id: number }) => item.id)).toEqual(dead.map((job) => job.id));
    expect(await allJobs(harness)).toEqual(before);
    expect(harness.logs.lines().filter((line) => line.message === 'admin change')).toEqual([]);
  });

  it('when it runs for real, then every matching delivery gets one replay, oldest first, and a second run finds nothing left', async () => {
    harness = await startAdminApp();
    const dead = [await deadRemap(harness.store, 'evt-1'), await deadRemap(harness.store, 'evt-2')];

    const first = await harness.post('/admin/deliveries/replay', { filter: {}, dryRun: false });
    const second = await harness.post('/admin/deliveries/replay', { filter: {}, dryRun: false });

    expect(first.body).toMatchObject({ dryRun: false, matched: 2, replayed: 2, capped: false });
    expect(second.body).toMatchObject({ dryRun: false, matched: 0, replayed: 0 });
    const replays = (await allJobs(harness)).filter((job) => job.replayOf !== null);
    expect(replays.map((job) => [job.replayOf, job.state, (job.payload as { replay?: boolean }).replay])).toEqual(dead.map((job) => [job.id, 'pending', true]));
    expect(harness.logs.lines().filter((line) => line.message === 'admin change')).toEqual([
      expect.objectContaining({ action: 'bulkReplay', matched: 2, replayed: 2, dryRun: false, filter: { state: 'dead', includeReplayed: false } }),
      expect.objectContaining({ action: 'bulkReplay', matched: 0, replayed: 0 }),
    ]);
  });

  it('when more deliveries match than ADMIN_BULK_MAX, then one run replays at most that many and says it was capped; the next run does the rest', async () => {
    harness = await startAdminApp({ env: { ADMIN_BULK_MAX: '2' } });
    const dead = [];
    for (const meeting of ['evt-1', 'evt-2', 'evt-3']) dead.push(await deadRemap(harness.store, meeting));

    const dry = await harness.post('/admin/deliveries/replay', { filter: { state: 'dead' }, dryRun: true });
    const first = await harness.post('/admin/deliveries/replay', { filter: { state: 'dead' }, dryRun: false });
    const second = await harness.post('/admin/deliveries/replay', { filter: { state: 'dead' }, dryRun: false });

    expect(dry.body).toMatchObject({ matched: 3, replayed: 2, capped: true });
    expect(first.body).toMatchObject({ matched: 3, replayed: 2, capped: true });
    expect(second.body).toMatchObject({ matched: 1, replayed: 1, capped: false });
    const replayed = (await allJobs(harness)).flatMap((job) => (job.replayOf === null ? [] : [job.replayOf]));
    expect(replayed).toEqual(dead.map((job) => job.id));
  });

  it('when includeReplayed is set, then deliveries replayed before are replayed again', async () => {
    harness = await startAdminApp();
    const dead = await deadRemap(harness.store, 'evt-again');
    await harness.post(`/admin/deliveries/${dead.id}/replay`).expect(202);

    const skipping = await harness.post('/admin/deliveries/replay', { filter: { state: 'dead' } });
    const including = await harness.post('/admin/deliveries/replay', { filter: { state: 'dead', includeReplayed: true } });

    expect(skipping.body).toMatchObject({ dryRun: true, matched: 0 });
    expect(including.body).toMatchObject({ dryRun: true, matched: 1 });
  });

  it('when includeReplayed is set for real, then a delivery whose replay ended is replayed again and one whose replay is still pending is skipped and not counted', async () => {
    harness = await startAdminApp();
    const [ended, inFlight, fresh] = [
      await deadRemap(harness.store, 'evt-ended'),
      await deadRemap(harness.store, 'evt-in-flight'),
      await deadRemap(harness.store, 'evt-fresh'),
    ];
    const endedReplay = (await harness.post(`/admin/deliveries/${ended.id}/replay`).expect(202)).body.delivery;
    await harness.post(`/admin/deliveries/${endedReplay.id}/cancel`).expect(200);
    const pendingReplay = (await harness.post(`/admin/deliveries/${inFlight.id}/replay`).expect(202)).body.delivery;

    const response = await harness.post('/admin/deliveries/replay', { filter: { state: 'dead', includeReplayed: true }, dryRun: false });

    expect(response.body).toMatchObject({ dryRun: false, matched: 3, replayed: 2 });
    const replaysOf = async (id: number) => (await harness!.store.listJobs({ replayOf: id, order: 'oldest', limit: 10 })).map((job) => job.id);
    expect(await replaysOf(ended.id)).toEqual([endedReplay.id, expect.any(Number)]);
    expect(await replaysOf(inFlight.id)).toEqual([pendingReplay.id]);
    expect(await replaysOf(fresh.id)).toHaveLength(1);
  });

  it.each([
    [{ filter: { state: 'pending' }, dryRun: true }, 'filter.state'],
    [{ filter: { state: 'dead', kind: 'map-event' } }, 'filter.kind'],
    [{ filter: { state: 'dead' }, dryRun: 'no' }, 'dryRun'],
    [{ dryRun: true }, 'filter'],
    [{ filter: { state: 'dead', extra: 1 } }, 'filter'],
    [{ filter: { since: '2026-05-08T10:00:00Z', until: '2026-05-01T10:00:00Z' } }, 'filter.since'],
  ])('when the body is %j, then 400 invalid_body names %s and nothing is enqueued', async (body, field) => {
    harness = await startAdminApp();
    await deadRemap(harness.store, 'evt-x');
    const before = await allJobs(harness);

    const response = await harness.post('/admin/deliveries/replay', body);

    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_body');
    expect(response.body.error.details.map((issue: { path: string }) => issue.path)).toContain(field);
    expect(await allJobs(harness)).toEqual(before);
  });

  it('when the body is not JSON, or not valid JSON, then 415 or 400 and nothing is enqueued', async () => {
    harness = await startAdminApp();
    await deadRemap(harness.store, 'evt-y');
    const before = await allJobs(harness);

    const form = await harness.post('/admin/deliveries/replay').type('form').send('dryRun=false');
    const broken = await harness.post('/admin/deliveries/replay').type('json').send('{"filter": ');
    const none = await harness.post('/admin/deliveries/replay');

    expect(form.status).toBe(415);
    expect(form.body.error.code).toBe('unsupported_media_type');
    expect(broken.status).toBe(400);
    expect(broken.body.error).toEqual({ code: 'invalid_json', message: 'body is not valid JSON' });
    expect(none.status).toBe(415);
    expect(await allJobs(harness)).toEqual(before);
  });
});
