import { describe, expect, it } from 'vitest';

import { createJobRegistry } from '../../src/jobs/registry.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import type { Store } from '../../src/store/types.ts';
import { captureLogs } from '../support/log-capture.ts';
import { waitFor } from '../support/wait-for.ts';
import { createPostHandler } from './support/post-handler.ts';
import { settled, state, useWorkerSetup } from './support/worker-setup.ts';

const { cleanups, setup } = useWorkerSetup();

describe('createWorker', () => {
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
});
