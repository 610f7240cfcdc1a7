import { afterEach, describe, expect, it } from 'vitest';
import { keyFingerprint } from '../../src/admin/api-keys.ts';
import { type AdminApp, KEY, startAdminApp } from './support/admin-app.ts';
import { deadRemap, pendingJob, remapJob, remapPayload, runningJob, settledJob } from './support/seed.ts';

const allJobs = (harness: AdminApp) => harness.store.listJobs({ limit: 1000, order: 'oldest' });

describe('POST /admin/deliveries/:id/replay', () => {
  let harness: AdminApp | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('when a dead remap is replayed, then a new pending delivery has the same request and flags, replay set, linked to the original and its event', async () => {
    harness = await startAdminApp();
    const dead = await deadRemap(harness.store, 'evt-r');

    const response = await harness.post(`/admin/deliveries/${dead.id}/replay`);

    expect(response.status).toBe(202);
    const replay = await harness.store.getJob(response.body.delivery.id);
    expect(replay).toMatchObject({ kind: 'remap', state: 'pending', replayOf: dead.id, coalesceKey: dead.coalesceKey, eventId: dead.eventId, attempts: 0 });
    expect(replay?.payload).toEqual({ ...remapPayload('evt-r'), replay: true });
    expect(response.body.delivery).toMatchObject({ id: replay!.id, state: 'pending', replayOf: dead.id });
    expect(await harness.store.getJob(dead.id)).toEqual(dead);
  });

  it.each(['succeeded', 'skipped', 'cancelled'] as const)('when a %s delivery is replayed, then it is accepted', async (state) => {
    harness = await startAdminApp();
    const outcome = state === 'succeeded' ? { state } : { state, reason: `it was ${state}` };
    const original = await settledJob(harness.store, remapJob(`evt-${state}`), outcome);

    const response = await harness.post(`/admin/deliveries/${original.id}/replay`);

    expect(response.status).toBe(202);
    expect(response.body.delivery.replayOf).toBe(original.id);
  });

  it('when an import is replayed, then its payload is copied unchanged (its schema has no replay flag) and linked', async () => {
    harness = await startAdminApp();
    const payload = { request: { meeting: { title: 'Call', id: 'm-1' }, processImportedMeeting: true } };
    const original = await settledJob(harness.store, { kind: 'import', payload }, { state: 'dead', reason: 'rejected' });

    const response = await harness.post(`/admin/deliveries/${original.id}/replay`).expect(202);

    expect(await harness.store.getJob(response.body.delivery.id)).toMatchObject({ kind: 'import', payload, replayOf: original.id, state: 'pending' });
  });

  it('when a pending, running or superseded delivery is replayed, then 409 names its state and nothing is enqueued', async () => {
    harness = await startAdminApp();
    const running = await runningJob(harness.store, remapJob('evt-run'));
    const superseded = await pendingJob(harness.store, remapJob('evt-sup'));
    const pending = await pendingJob(harness.store, remapJob('evt-sup'));
    const before = await allJobs(harness);

    for (const [job, state] of [[pending, 'pending'], [running, 'running'], [superseded, 'superseded']] as const) {
      const response = await harness.post(`/admin/deliveries/${job.id}/replay`);

      expect(response.status).toBe(409);
      expect(response.body.error).toEqual({
        code: 'not_replayable',
        message: `delivery ${job.id} is ${state}; only dead, succeeded, cancelled, skipped deliveries can be replayed`,
        details: { state },
      });
    }
    expect(await allJobs(harness)).toEqual(before);
    expect(harness.logs.lines().filter((line) => line.message === 'admin change')).toEqual([]);
  });

  it('when the delivery does not exist, then 404 and nothing is enqueued', async () => {
    harness = await startAdminApp();

    const response = await harness.post('/admin/deliveries/4242/replay');

    expect(response.status).toBe(404);
    expect(await allJobs(harness)).toEqual([]);
  });
});

describe('POST /admin/deliveries/:id/cancel', () => {
  let harness: AdminApp | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('when a pending delivery is cancelled, then it ends cancelled with the operator named by fingerprint, and the change is logged', async () => {
    harness = await startAdminApp();
    const pending = await pendingJob(harness.store, remapJob('evt-c'));

    const response = await harness.post(`/admin/deliveries/${pending.id}/cancel`);

    expect(response.status).toBe(200);
    expect(response.body.delivery).toMatchObject({ id: pending.id, state: 'cancelled', lastError: `cancelled by an operator (key ${keyFingerprint(KEY)})` });
    expect(await harness.store.getJob(pending.id)).toMatchObject({ state: 'cancelled' });
    expect(harness.logs.lines().find((line) => line.message === 'admin change')).toMatchObject({ action: 'cancelDelivery', deliveryId: pending.id, state: 'cancelled', keyFingerprint: keyFingerprint(KEY) });
  });

  it('when the delivery is not pending, then 409 names its state and it is left as it was', async () => {
    harness = await startAdminApp();
    const dead = await deadRemap(harness.store, 'evt-d');
    const running = await runningJob(harness.store, remapJob('evt-e'));

    const deadAnswer = await harness.post(`/admin/deliveries/${dead.id}/cancel`);
    const runningAnswer = await harness.post(`/admin/deliveries/${running.id}/cancel`);

    expect(deadAnswer.status).toBe(409);
    expect(deadAnswer.body.error).toMatchObject({ code: 'not_cancellable', details: { state: 'dead' } });
    expect(runningAnswer.status).toBe(409);
    expect(runningAnswer.body.error.details).toEqual({ state: 'running' });
    expect(await harness.store.getJob(dead.id)).toEqual(dead);
    expect(await harness.store.getJob(running.id)).toEqual(running);
  });

  it('when the id is unknown, then 404', async () => {
    harness = await startAdminApp();

    expect((await harness.post('/admin/deliveries/31337/cancel')).status).toBe(404);
  });
});

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
