import { describe, expect, it } from 'vitest';

import { createJobRegistry } from '../../src/jobs/registry.ts';
import type { JobHandler } from '../../src/jobs/types.ts';
import { createWorker, type Worker } from '../../src/jobs/worker.ts';
import type { Store } from '../../src/store/types.ts';
import { captureLogs } from '../support/log-capture.ts';
import { waitFor } from '../support/wait-for.ts';
import { createPostHandler } from './support/post-handler.ts';
import { settled, useWorkerSetup } from './support/worker-setup.ts';

const { cleanups, setup } = useWorkerSetup();

describe('createWorker', () => {
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
});
