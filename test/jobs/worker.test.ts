import { describe, expect, it } from 'vitest';

import { createJobRegistry } from '../../src/jobs/registry.ts';
import type { JobFinishedEvent } from '../../src/jobs/run-job.ts';
import type { JobHandler } from '../../src/jobs/types.ts';
import { createWorker, type Worker, type WorkerOptions } from '../../src/jobs/worker.ts';
import type { Store } from '../../src/store/types.ts';
import { type Responder, startRecordingServer } from '../fakes/recording-server.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { captureLogs } from '../support/log-capture.ts';
import { openRealStore } from '../support/real-store.ts';
import { waitFor } from '../support/wait-for.ts';
import { createPostHandler } from './support/post-handler.ts';

const cleanups = cleanupAfterEach();

/** A store, a recorder and a worker whose `post` kind POSTs to the recorder; the worker is not started. */
async function setup(options: { responder?: Responder; handlers?: Record<string, JobHandler>; worker?: Partial<WorkerOptions> } = {}) {
  const { store, close: closeStore } = await openRealStore();
  const recorder = await startRecordingServer(options.responder);
  const { logger, lines } = captureLogs({ level: 'info' });
  const finished: JobFinishedEvent[] = [];
  const registry = createJobRegistry({ post: createPostHandler({ url: recorder.url }), ...options.handlers });
  const worker = createWorker({
    store,
    registry,
    logger,
    concurrency: 4,
    retrySchedule: [0, 50, 50],
    leaseMs: 5_000,
    // A long idle check: a job that runs at once was woken by its enqueue, not found by the timer.
    maxIdleMs: 60_000,
    onJobFinished: (event) => finished.push(event),
    ...options.worker,
  });
  cleanups.push(async () => {
    await worker.stop(1_000);
    await recorder.close();
    await closeStore();
  });
  return { store, recorder, worker, finished, lines };
}

const state = async (store: Store, id: number) => (await store.getJob(id))?.state;
const settled = (store: Store, id: number, expected: string) => async () => (await state(store, id)) === expected;

describe('createWorker', () => {
  it('when a job is enqueued to an idle worker, then it is sent at once without waiting for the idle timer', async () => {
    const { store, recorder, worker, finished, lines } = await setup();
    worker.start();
    await waitFor('the worker to go idle', async () => (await store.nextDueAt()) === undefined);

    const [job] = await store.enqueue([{ kind: 'post', payload: { meeting: 'm-1', secretNote: 'payload-only' } }]);

    await waitFor('the job to succeed', settled(store, job!.id, 'succeeded'), 5_000);
    expect(recorder.requests.map((request) => [request.jobId, request.body])).toEqual([[job!.id, { meeting: 'm-1', secretNote: 'payload-only' }]]);
    expect(await store.getJob(job!.id)).toMatchObject({ attempts: 1, leaseOwner: null });
    expect(finished).toEqual([expect.objectContaining({ jobId: job!.id, kind: 'post', state: 'succeeded', attempts: 1, recorded: true })]);
    const line = lines().find((entry) => entry.message === 'job finished');
    expect(line).toMatchObject({ level: 'info', jobId: job!.id, kind: 'post', state: 'succeeded', attempts: 1, status: 200, ms: expect.any(Number) });
    expect(JSON.stringify(lines())).not.toContain('payload-only');
  });

  it('when the upstream fails once with 500, then the job is retried on the schedule and succeeds', async () => {
    const { store, recorder, worker } = await setup({ responder: (_request, seen) => ({ status: seen === 0 ? 500 : 200 }) });
    const [job] = await store.enqueue([{ kind: 'post', payload: { n: 1 } }]);

    worker.start();

    await waitFor('the retry to succeed', settled(store, job!.id, 'succeeded'));
    expect(recorder.counts().get(job!.id)).toBe(2);
    expect(await store.getJob(job!.id)).toMatchObject({ attempts: 2 });
    expect((await store.getAttempts(job!.id)).map((attempt) => attempt.status)).toEqual([500, 200]);
  });

  it('when the upstream keeps failing, then the job is dead after the last schedule step', async () => {
    const { store, recorder, worker, finished, lines } = await setup({ responder: () => ({ status: 503 }) });
    const [job] = await store.enqueue([{ kind: 'post', payload: {} }]);

    worker.start();

    await waitFor('the job to die', settled(store, job!.id, 'dead'));
    const stored = await store.getJob(job!.id);
    expect(stored).toMatchObject({ attempts: 3 });
    expect(stored?.lastError).toContain('gave up after 3 attempts: HTTP 503');
    expect(recorder.counts().get(job!.id)).toBe(3);
    expect(finished.map((event) => event.state)).toEqual(['retry', 'retry', 'dead']);
    expect(
      lines()
        .filter((entry) => entry.message === 'job finished')
        .map((entry) => entry.level),
    ).toEqual(['info', 'info', 'warn']);
  });

  it('when a handler reports retryable failures without an attempt record, then attempts still count and the job dies on schedule', async () => {
    const bare: JobHandler = async () => ({ kind: 'retryable', error: 'upstream unreachable' });
    const { store, worker } = await setup({ handlers: { bare } });
    const [job] = await store.enqueue([{ kind: 'bare', payload: {} }]);

    worker.start();

    await waitFor('the job to die', settled(store, job!.id, 'dead'));
    expect(await store.getJob(job!.id)).toMatchObject({ attempts: 3, lastError: 'gave up after 3 attempts: upstream unreachable' });
    expect((await store.getAttempts(job!.id)).map((attempt) => attempt.errorClass)).toEqual(['error', 'error', 'error']);
  });

  it('when the upstream rejects with 400, then the job is dead at once and not retried', async () => {
    const { store, recorder, worker } = await setup({ responder: () => ({ status: 400 }) });
    const [job] = await store.enqueue([{ kind: 'post', payload: {} }]);

    worker.start();

    await waitFor('the job to die', settled(store, job!.id, 'dead'));
    expect(await store.getJob(job!.id)).toMatchObject({ attempts: 1, lastError: 'HTTP 400' });
    expect(recorder.counts().get(job!.id)).toBe(1);
  });

  it('when a handler defers twice for pacing, then the deferrals do not count as attempts', async () => {
    let calls = 0;
    const pacedThenOk: JobHandler = async (_job, context) => (++calls <= 2 ? { kind: 'deferred', runAt: context.now() + 20 } : { kind: 'succeeded' });
    const { store, worker, finished } = await setup({ handlers: { paced: pacedThenOk }, worker: { maxIdleMs: 100 } });
    const [job] = await store.enqueue([{ kind: 'paced', payload: {} }]);

    worker.start();

    await waitFor('the job to succeed', settled(store, job!.id, 'succeeded'));
    expect(calls).toBe(3);
    expect(await store.getJob(job!.id)).toMatchObject({ attempts: 1 });
    expect(finished.map((event) => [event.state, event.attempts])).toEqual([
      ['deferred', 0],
      ['deferred', 0],
      ['succeeded', 1],
    ]);
  });

  it('when three jobs for one key are enqueued while the first is pending, then only the newest is sent', async () => {
    const { store, recorder, worker } = await setup();
    const [first] = await store.enqueue([{ kind: 'post', payload: { version: 1 }, coalesceKey: 'meeting-42' }]);
    const [second] = await store.enqueue([{ kind: 'post', payload: { version: 2 }, coalesceKey: 'meeting-42' }]);
    const [third] = await store.enqueue([{ kind: 'post', payload: { version: 3 }, coalesceKey: 'meeting-42' }]);

    worker.start();

    await waitFor('the newest to succeed', settled(store, third!.id, 'succeeded'));
    expect(recorder.requests.map((request) => request.body)).toEqual([{ version: 3 }]);
    expect(await store.getJob(first!.id)).toMatchObject({ state: 'superseded', attempts: 0 });
    expect(await store.getJob(second!.id)).toMatchObject({ state: 'superseded', attempts: 0, supersededBy: third!.id });
  });

  it('when a job of a key is running, then the next job of that key waits for it while other keys go ahead', async () => {
    const { store, recorder, worker } = await setup({
      responder: (request) => ((request.body as { slow?: boolean }).slow ? { status: 200, delayMs: 300 } : { status: 200 }),
    });
    worker.start();
    const [running] = await store.enqueue([{ kind: 'post', payload: { slow: true }, coalesceKey: 'meeting-7' }]);
    await waitFor('the slow job to reach the upstream', () => recorder.requests.length === 1);

    const [next] = await store.enqueue([{ kind: 'post', payload: { step: 2 }, coalesceKey: 'meeting-7' }]);
    const [other] = await store.enqueue([{ kind: 'post', payload: { step: 'other' }, coalesceKey: 'meeting-8' }]);
    await waitFor('the other key to be sent', () => recorder.counts().has(other!.id));
    const runningWhenOtherWasSent = await state(store, running!.id);
    await waitFor('the next job to succeed', settled(store, next!.id, 'succeeded'));

    expect(runningWhenOtherWasSent).toBe('running');
    const [slow, , after] = recorder.requests;
    expect(recorder.requests.map((request) => request.jobId)).toEqual([running!.id, other!.id, next!.id]);
    expect(after!.at).toBeGreaterThanOrEqual(slow!.repliedAt!);
    expect(await store.getJob(running!.id)).toMatchObject({ state: 'succeeded', attempts: 1 });
    expect(await store.getJob(next!.id)).toMatchObject({ attempts: 1, supersededBy: null });
  });

  it('when wake-ups arrive during a claim that fills the worker, then the worker does not spin and still finishes', async () => {
    const { store, recorder } = await setup();
    const listeners = new Set<() => void>();
    // Every claim is accompanied by a "jobs available" wake-up, as from another instance's enqueue.
    const noisy: Store = {
      ...store,
      claim: async (options) => {
        const claimed = await store.claim(options);
        listeners.forEach((listener) => listener());
        return claimed;
      },
      onJobsAvailable: (listener) => {
        listeners.add(listener);
        const unsubscribe = store.onJobsAvailable(listener);
        return () => {
          listeners.delete(listener);
          unsubscribe();
        };
      },
    };
    // One job running and one claimed ahead fill this worker.
    const worker = createWorker({
      store: noisy,
      logger: captureLogs({ level: 'info' }).logger,
      concurrency: 1,
      prefetch: 1,
      retrySchedule: [0],
      leaseMs: 5_000,
      maxIdleMs: 60_000,
      registry: createJobRegistry({ post: createPostHandler({ url: recorder.url }) }),
    });
    cleanups.push(() => worker.stop(1_000));
    const jobs = await store.enqueue([
      { kind: 'post', payload: { n: 1 } },
      { kind: 'post', payload: { n: 2 } },
    ]);

    worker.start();
    const timerFired = await new Promise<boolean>((resolve) => setTimeout(resolve, 20, true));

    expect(timerFired).toBe(true);
    await waitFor('both jobs to succeed', async () => (await Promise.all(jobs.map((job) => state(store, job.id)))).every((value) => value === 'succeeded'));
    expect(recorder.requests.map((request) => request.jobId)).toEqual(jobs.map((job) => job.id));
  });

  it('when a job kind has no handler, then the job is dead with a reason naming the kind and nothing is sent', async () => {
    const { store, recorder, worker } = await setup();
    const [job] = await store.enqueue([{ kind: 'calendar-sink', payload: {} }]);

    worker.start();

    await waitFor('the job to die', settled(store, job!.id, 'dead'));
    expect((await store.getJob(job!.id))?.lastError).toBe('no handler registered for job kind "calendar-sink" (known: post)');
    expect(recorder.requests).toEqual([]);
  });

  it('when a handler throws, then the job is retried with the error message and the throw is logged', async () => {
    let calls = 0;
    const flaky: JobHandler = async () => {
      if (++calls === 1) throw new Error('mapping rules not loaded');
      return { kind: 'succeeded' };
    };
    const { store, worker, lines } = await setup({ handlers: { flaky } });
    const [job] = await store.enqueue([{ kind: 'flaky', payload: {} }]);

    worker.start();

    await waitFor('the job to succeed', settled(store, job!.id, 'succeeded'));
    expect(await store.getJob(job!.id)).toMatchObject({ attempts: 2 });
    expect((await store.getAttempts(job!.id))[0]).toMatchObject({ errorClass: 'exception', responseExcerpt: 'mapping rules not loaded' });
    expect(lines()).toContainEqual(expect.objectContaining({ level: 'warn', message: 'job handler threw', error: 'mapping rules not loaded', jobId: job!.id }));
  });

  it('when a job runs longer than its lease, then the lease is extended and no other worker runs it', async () => {
    const { store, recorder, worker } = await setup({ responder: () => ({ status: 200, delayMs: 600 }), worker: { leaseMs: 150 } });
    const { logger } = captureLogs({ level: 'info' });
    const rival: Worker = createWorker({
      store,
      logger,
      registry: createJobRegistry({ post: createPostHandler({ url: recorder.url }) }),
      concurrency: 1,
      retrySchedule: [0],
      leaseMs: 150,
      maxIdleMs: 20,
    });
    cleanups.push(() => rival.stop(1_000));
    const [job] = await store.enqueue([{ kind: 'post', payload: {} }]);
    worker.start();
    await waitFor('the job to reach the upstream', () => recorder.requests.length === 1);

    rival.start();

    await waitFor('the job to succeed', settled(store, job!.id, 'succeeded'));
    expect(recorder.counts().get(job!.id)).toBe(1);
    expect(await store.getJob(job!.id)).toMatchObject({ attempts: 1 });
  });

  it('when the lease of a running job cannot be extended, then the run is aborted and its late outcome is not stored', async () => {
    let aborted: unknown;
    let finishHandler = () => {};
    const handlerMayFinish = new Promise<void>((resolve) => (finishHandler = resolve));
    const waitForAbort: JobHandler = async (_job, context) => {
      await new Promise((resolve) => context.signal.addEventListener('abort', resolve));
      aborted = context.signal.reason;
      await handlerMayFinish;
      return { kind: 'succeeded' };
    };
    const { store } = await setup();
    const failing: Store = { ...store, extendLeases: async () => Promise.reject(new Error('database unreachable')) };
    const { logger, lines } = captureLogs({ level: 'info' });
    // prefetch 0: this worker claims nothing more while its one slot is busy, so the rescuer gets the job.
    const worker = createWorker({
      store: failing,
      logger,
      concurrency: 1,
      prefetch: 0,
      retrySchedule: [0],
      leaseMs: 150,
      owner: 'lease-loser',
      registry: createJobRegistry({ wait: waitForAbort }),
    });
    cleanups.push(() => worker.stop(1_000));
    const [job] = await store.enqueue([{ kind: 'wait', payload: {} }]);
    worker.start();
    await waitFor('the run to be aborted', () => aborted !== undefined);

    // Another worker takes the job over once the lease has expired; then the old run ends.
    const [retaken] = await store.claim({ owner: 'rescuer', limit: 1, leaseMs: 5_000 });
    finishHandler();

    await waitFor('the lost lease to be logged', () => lines().some((entry) => entry.message === 'job lease lost before its outcome was stored'));
    expect((aborted as Error).message).toBe('job lease lost');
    expect(retaken?.id).toBe(job!.id);
    expect(await store.getJob(job!.id)).toMatchObject({ state: 'running', leaseOwner: 'rescuer', attempts: 0 });
    expect(await store.getAttempts(job!.id)).toEqual([]);
    expect(lines()).toContainEqual(expect.objectContaining({ level: 'warn', message: 'extending job leases failed', error: 'database unreachable' }));
  });

  it('when stopped with jobs still running past the deadline, then they are aborted and their leases released', async () => {
    const signals: AbortSignal[] = [];
    const hang: JobHandler = (_job, context) =>
      new Promise((resolve) => {
        signals.push(context.signal);
        context.signal.addEventListener('abort', () => resolve({ kind: 'retryable', error: 'aborted' }));
      });
    const { store, worker } = await setup({ handlers: { hang } });
    const jobs = await store.enqueue([
      { kind: 'hang', payload: {} },
      { kind: 'hang', payload: {} },
    ]);
    worker.start();
    await waitFor('both jobs to start', () => signals.length === 2);

    await worker.stop(50);

    expect(worker.isRunning()).toBe(false);
    expect(signals.every((signal) => signal.aborted)).toBe(true);
    for (const job of jobs) {
      expect(await store.getJob(job.id)).toMatchObject({ state: 'pending', leaseOwner: null, attempts: 0 });
      expect(await store.getAttempts(job.id)).toEqual([]);
    }
  });

  it('when stopped while a job finishes within the deadline, then its outcome is stored and nothing new is claimed', async () => {
    const { store, recorder, worker } = await setup({ responder: () => ({ status: 200, delayMs: 150 }), worker: { concurrency: 1 } });
    const [first, second] = await store.enqueue([
      { kind: 'post', payload: { n: 1 } },
      { kind: 'post', payload: { n: 2 } },
    ]);
    worker.start();
    await waitFor('the first job to reach the upstream', () => recorder.requests.length === 1);

    await worker.stop(5_000);

    expect(await store.getJob(first!.id)).toMatchObject({ state: 'succeeded', attempts: 1 });
    expect(await store.getJob(second!.id)).toMatchObject({ state: 'pending', attempts: 0, leaseOwner: null });
    expect(recorder.counts().has(second!.id)).toBe(false);
  });

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
