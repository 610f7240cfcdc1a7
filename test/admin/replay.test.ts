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

    for (const [job, state] of [
      [pending, 'pending'],
      [running, 'running'],
      [superseded, 'superseded'],
    ] as const) {
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

  it('when a delivery whose replay is still pending or running is replayed again, then 409 replay_in_progress names that replay and nothing is enqueued', async () => {
    harness = await startAdminApp();
    const dead = await deadRemap(harness.store, 'evt-twice');
    const first = (await harness.post(`/admin/deliveries/${dead.id}/replay`).expect(202)).body.delivery;
    const whilePending = await harness.post(`/admin/deliveries/${dead.id}/replay`);
    await harness.store.claim({ owner: 'test-worker', limit: 10, leaseMs: 60_000 });
    const before = await allJobs(harness);

    const whileRunning = await harness.post(`/admin/deliveries/${dead.id}/replay`);

    expect((await harness.store.getJob(first.id))?.state).toBe('running');
    for (const response of [whilePending, whileRunning]) {
      expect(response.status).toBe(409);
      expect(response.body.error).toEqual({
        code: 'replay_in_progress',
        message: `delivery ${dead.id} already has replay ${first.id} pending or running; replay it again once that one has ended`,
        details: { replayId: first.id },
      });
    }
    expect(await allJobs(harness)).toEqual(before);
    expect(harness.logs.lines().filter((line) => line.message === 'admin change')).toHaveLength(1);
  });

  it("when a delivery's replay has ended, then it may be replayed again, linked to the same original", async () => {
    harness = await startAdminApp();
    const dead = await deadRemap(harness.store, 'evt-again');
    const first = (await harness.post(`/admin/deliveries/${dead.id}/replay`).expect(202)).body.delivery;
    await harness.post(`/admin/deliveries/${first.id}/cancel`).expect(200);

    const second = await harness.post(`/admin/deliveries/${dead.id}/replay`);

    expect(second.status).toBe(202);
    expect(second.body.delivery).toMatchObject({ state: 'pending', replayOf: dead.id });
    expect((await harness.store.listJobs({ replayOf: dead.id, limit: 10, order: 'oldest' })).map((job) => job.id)).toEqual([first.id, second.body.delivery.id]);
  });

  it('when one delivery is replayed by many concurrent requests, then exactly one is accepted and the others name its replay', async () => {
    harness = await startAdminApp();
    const dead = await deadRemap(harness.store, 'evt-race');

    const responses = await Promise.all(Array.from({ length: 8 }, () => harness!.post(`/admin/deliveries/${dead.id}/replay`)));

    const accepted = responses.filter((response) => response.status === 202);
    expect(accepted).toHaveLength(1);
    const replayId = accepted[0]!.body.delivery.id;
    expect(responses.filter((response) => response.status === 409).map((response) => response.body.error.details)).toEqual(
      Array.from({ length: 7 }, () => ({ replayId })),
    );
    expect((await harness.store.listJobs({ replayOf: dead.id, limit: 10 })).map((job) => job.id)).toEqual([replayId]);
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
    expect(harness.logs.lines().find((line) => line.message === 'admin change')).toMatchObject({
      action: 'cancelDelivery',
      deliveryId: pending.id,
      state: 'cancelled',
      keyFingerprint: keyFingerprint(KEY),
    });
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
