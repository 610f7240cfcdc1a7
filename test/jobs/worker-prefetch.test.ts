import { describe, expect, it } from 'vitest';

import type { JobHandler } from '../../src/jobs/types.ts';
import type { Responder } from '../fakes/recording-server.ts';
import { waitFor } from '../support/wait-for.ts';
import { settled, state, useWorkerSetup } from './support/worker-setup.ts';

const { setup } = useWorkerSetup();

describe('createWorker', () => {
  describe('claiming ahead (prefetch)', () => {
    const slowFirst: Responder = (request) => ((request.body as { slow?: boolean }).slow ? { status: 200, delayMs: 300 } : { status: 200 });
    // A worker claims ahead only as many jobs as finished lately: one fast job first sets the pace.
    const paced = { concurrency: 1, prefetch: 4, prefetchWindowMs: 60_000 };
    const warmUp = { kind: 'post', payload: { warmUp: true } };

    it('when a newer job of its key is enqueued while a job waits for a slot, then the waiting job is superseded unsent and the newest is sent', async () => {
      const { store, recorder, worker, lines } = await setup({ responder: slowFirst, worker: paced });
      const [, blocker, older] = await store.enqueue([
        warmUp,
        { kind: 'post', payload: { slow: true } },
        { kind: 'post', payload: { version: 1 }, coalesceKey: 'meeting-7' },
      ]);
      worker.start();
      await waitFor('the blocker to reach the upstream', () => recorder.requests.length === 2);
      // Claimed ahead: running in the store, waiting in the worker, so the enqueue below cannot supersede it.
      expect(await store.getJob(older!.id)).toMatchObject({ state: 'running' });

      const [newer] = await store.enqueue([{ kind: 'post', payload: { version: 2 }, coalesceKey: 'meeting-7' }]);

      await waitFor('the newer job to succeed', settled(store, newer!.id, 'succeeded'));
      expect(recorder.requests.map((request) => request.body)).toEqual([{ warmUp: true }, { slow: true }, { version: 2 }]);
      expect(await store.getJob(older!.id)).toMatchObject({ state: 'superseded', supersededBy: newer!.id, attempts: 0, leaseOwner: null });
      expect(await store.getJob(blocker!.id)).toMatchObject({ state: 'succeeded' });
      expect(lines()).toContainEqual(expect.objectContaining({ message: 'job superseded while it waited to run', jobId: older!.id, supersededBy: newer!.id }));
    });

    it('when no newer job of its key is pending, then a waiting job runs as claimed after one look at the queue', async () => {
      const { store, recorder, worker } = await setup({ responder: slowFirst, worker: paced });
      const looked: string[] = [];
      const pendingOfKey = store.pendingOfKey.bind(store);
      store.pendingOfKey = async (key) => {
        looked.push(key);
        return pendingOfKey(key);
      };
      const jobs = await store.enqueue([warmUp, { kind: 'post', payload: { slow: true } }, { kind: 'post', payload: { n: 1 }, coalesceKey: 'meeting-8' }]);
      worker.start();
      await waitFor('the slow job to reach the upstream', () => recorder.requests.length === 2);
      expect(await store.getJob(jobs[2]!.id)).toMatchObject({ state: 'running' });

      await waitFor('every job to succeed', async () => (await Promise.all(jobs.map((job) => state(store, job.id)))).every((value) => value === 'succeeded'));
      expect(recorder.requests.map((request) => request.body)).toEqual([{ warmUp: true }, { slow: true }, { n: 1 }]);
      // Only the keyed job that waited is looked up; the ones started straight from a claim are not.
      expect(looked).toEqual(['meeting-8']);
    });

    it('when a running job enqueues a newer job for the key of a waiting job, then the waiting job steps aside and only the newer is sent', async () => {
      // Like map-event making a remap: the outcome that enqueues is stored before its slot is freed.
      const spawn: JobHandler = async () => ({ kind: 'succeeded', enqueue: [{ kind: 'post', payload: { version: 2 }, coalesceKey: 'meeting-9' }] });
      // Two slots: once the warm-up is done, the spawner runs beside the slow job and the older one waits.
      const { store, recorder, worker } = await setup({ responder: slowFirst, handlers: { spawn }, worker: { ...paced, concurrency: 2 } });
      const [, , spawner, older] = await store.enqueue([
        warmUp,
        { kind: 'post', payload: { slow: true } },
        { kind: 'spawn', payload: {} },
        { kind: 'post', payload: { version: 1 }, coalesceKey: 'meeting-9' },
      ]);
      worker.start();

      await waitFor(
        'the spawner and the older job to be final',
        async () => (await state(store, spawner!.id)) === 'succeeded' && (await state(store, older!.id)) !== 'running',
      );
      await waitFor('the newer job to be sent', () => recorder.requests.some((request) => (request.body as { version?: number }).version === 2));
      expect(recorder.requests.map((request) => request.body)).not.toContainEqual({ version: 1 });
      expect(await store.getJob(older!.id)).toMatchObject({ state: 'superseded', attempts: 0 });
    });

    it('when a job waits longer than its lease, then the lease is kept and no other worker can claim it', async () => {
      const { store, recorder, worker } = await setup({
        responder: (request) => ((request.body as { slow?: boolean }).slow ? { status: 200, delayMs: 700 } : { status: 200 }),
        worker: { ...paced, leaseMs: 300 },
      });
      const [warm, slow, waiting] = await store.enqueue([warmUp, { kind: 'post', payload: { slow: true } }, { kind: 'post', payload: { n: 2 } }]);
      worker.start();
      await waitFor('the slow job to reach the upstream', () => recorder.requests.length === 2);
      expect(await store.getJob(waiting!.id)).toMatchObject({ state: 'running', leaseOwner: worker.owner });

      // Past the first lease of the waiting job (300 ms): only a kept lease stops the rival.
      await new Promise((resolve) => setTimeout(resolve, 450));
      const rival = await store.claim({ owner: 'rival', limit: 5, leaseMs: 5_000 });

      await waitFor('the waiting job to succeed', settled(store, waiting!.id, 'succeeded'));
      expect(rival).toEqual([]);
      expect(recorder.requests.map((request) => request.jobId)).toEqual([warm!.id, slow!.id, waiting!.id]);
    });

    it('when jobs finish one at a time behind a full claim-ahead queue, then it is refilled in chunks, not by one claim per finished job', async () => {
      const { store, worker } = await setup({ worker: { concurrency: 1, prefetch: 8, prefetchWindowMs: 60_000 } });
      const limits: number[] = [];
      const claim = store.claim.bind(store);
      store.claim = async (options) => {
        limits.push(options.limit);
        return claim(options);
      };
      const jobs = await store.enqueue(Array.from({ length: 48 }, (_, n) => ({ kind: 'post', payload: { n } })));

      worker.start();
      await waitFor('every job to succeed', async () => (await Promise.all(jobs.map((job) => state(store, job.id)))).every((value) => value === 'succeeded'));

      // Once eight jobs have finished the depth is 8 and each refill claims at least half of it;
      // before that the depth grows one job at a time. One claim per finished job would be ~48.
      const refills = limits.slice(8);
      expect(refills.length).toBeGreaterThan(0);
      expect(Math.min(...refills.slice(0, -1))).toBeGreaterThanOrEqual(4);
      expect(limits.length).toBeLessThanOrEqual(8 + Math.ceil(40 / 4) + 1);
    });

    it('when nothing finished lately (a hanging upstream), then nothing is claimed ahead: later jobs stay pending and cancellable', async () => {
      const { store, recorder, worker } = await setup({ responder: () => ({ status: 200, delayMs: 400 }), worker: { concurrency: 1, prefetch: 4 } });
      const [first, second, third] = await store.enqueue([
        { kind: 'post', payload: { n: 1 } },
        { kind: 'post', payload: { n: 2 } },
        { kind: 'post', payload: { n: 3 } },
      ]);
      worker.start();
      await waitFor('the first job to reach the upstream', () => recorder.requests.length === 1);

      expect(await store.getJob(first!.id)).toMatchObject({ state: 'running' });
      expect(await store.getJob(second!.id)).toMatchObject({ state: 'pending', leaseOwner: null });
      expect(await store.cancelJob(third!.id, 'operator: not needed')).toMatchObject({ state: 'cancelled' });
      await waitFor('the second job to succeed', settled(store, second!.id, 'succeeded'));
      expect(recorder.requests.map((request) => request.jobId)).toEqual([first!.id, second!.id]);
    });
  });
});
