import { describe, expect, it } from 'vitest';

import { createPacer } from '../../src/jobs/pacer.ts';
import { createJobRegistry } from '../../src/jobs/registry.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import { busiestWindow } from '../../src/store/rate-log.ts';
import { startRecordingServer } from '../fakes/recording-server.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { captureLogs } from '../support/log-capture.ts';
import { openRealStore } from '../support/real-store.ts';
import { waitFor } from '../support/wait-for.ts';
import { createPostHandler } from './support/post-handler.ts';

const cleanups = cleanupAfterEach();

const LIMIT = { requests: 5, windowMs: 1_500 };
const KEY = 'momentum:key-1';

type WorkerOptions = Parameters<typeof createWorker>[0];

/**
 * A worker posting paced `post` jobs to the recorder, stopped (with the recorder and the store)
 * after the test. `options` override the defaults each test cares about.
 */
function pacedWorker(
  parts: { store: WorkerOptions['store']; pacer: ReturnType<typeof createPacer>; recorderUrl: string; close: () => Promise<void> },
  options: Partial<WorkerOptions> = {},
) {
  const worker = createWorker({
    store: parts.store,
    logger: captureLogs({ level: 'info' }).logger,
    concurrency: 4,
    retrySchedule: [0, 50],
    leaseMs: 5_000,
    maxIdleMs: 1_000,
    pacer: parts.pacer,
    registry: createJobRegistry({ post: createPostHandler({ url: parts.recorderUrl, pacer: parts.pacer, bucketKey: KEY }) }),
    ...options,
  });
  cleanups.push(async () => {
    await worker.stop(1_000);
    await parts.close();
  });
  return worker;
}

describe('worker pacing', () => {
  it('when jobs outnumber the budget, then no window of its length ever holds more calls than the limit, and each job is claimed once', async () => {
    const { store, close: closeStore } = await openRealStore();
    const recorder = await startRecordingServer();
    const pacer = createPacer(store, [{ key: KEY, limit: LIMIT }]);
    let claims = 0;
    const close = async () => {
      await recorder.close();
      await closeStore();
    };
    const worker = pacedWorker({ store, pacer, recorderUrl: recorder.url, close }, { onJobsClaimed: (jobs) => void (claims += jobs.length) });
    const jobs = await store.enqueue(Array.from({ length: 12 }, (_, index) => ({ kind: 'post', payload: { index }, rateKey: KEY })));

    worker.start();
    await waitFor('every job to be sent', () => recorder.requests.length >= jobs.length, 20_000);
    await waitFor('every outcome to be stored', async () =>
      (await Promise.all(jobs.map((job) => store.getJob(job.id)))).every((job) => job?.state === 'succeeded'),
    );

    // Three full windows: 5 at once, 5 a window later, 2 a window after that; never 6 in any 1.5 s.
    expect(
      busiestWindow(
        recorder.requests.map((request) => request.at),
        LIMIT.windowMs,
      ),
    ).toBe(LIMIT.requests);
    const times = recorder.requests.map((request) => request.at).sort((a, b) => a - b);
    expect(times[11]! - times[0]!).toBeGreaterThanOrEqual(2 * LIMIT.windowMs);
    expect([...recorder.counts().values()]).toEqual(Array(jobs.length).fill(1));
    expect(claims).toBe(jobs.length);
    for (const job of jobs) expect((await store.getJob(job.id))?.attempts).toBe(1);
  });

  it('when stop() begins while a claim is under way, then the paced jobs it took are not run, go back to the queue, and give their call slots back', async () => {
    // Arrange: a claim that has taken its jobs and their slots, held until stop() has begun.
    const { store: inner, close: closeStore } = await openRealStore();
    const recorder = await startRecordingServer();
    let holdClaims = true;
    const claimed = Promise.withResolvers<void>();
    const proceed = Promise.withResolvers<void>();
    const store: typeof inner = {
      ...inner,
      async claim(options) {
        const jobs = await inner.claim(options);
        if (holdClaims && jobs.length > 0) {
          holdClaims = false;
          claimed.resolve();
          await proceed.promise;
        }
        return jobs;
      },
    };
    const pacer = createPacer(store, [{ key: KEY, limit: LIMIT }]);
    const close = async () => {
      await recorder.close();
      await closeStore();
    };
    const worker = pacedWorker({ store, pacer, recorderUrl: recorder.url, close });
    const jobs = await store.enqueue(Array.from({ length: 3 }, (_, index) => ({ kind: 'post', payload: { index }, rateKey: KEY })));
    worker.start();
    await claimed.promise;
    const whileClaimed = await store.rateState(KEY, LIMIT.requests, LIMIT.windowMs);

    // Act
    const stopping = worker.stop(1_000);
    proceed.resolve();
    await stopping;

    // Assert: no call, every job pending again, and the whole budget free for whoever runs next.
    const afterStop = await store.rateState(KEY, LIMIT.requests, LIMIT.windowMs);
    expect(whileClaimed.used).toBe(3);
    expect(recorder.requests).toEqual([]);
    for (const job of jobs) expect(await store.getJob(job.id)).toMatchObject({ state: 'pending', leaseOwner: null, attempts: 0 });
    expect(afterStop.used).toBe(0);
  });

  it('when a process dies after its call reached the upstream, then no call follows within a window of the latest moment that call could have arrived', async () => {
    // Arrange: one call per 800 ms; a call takes at most 400 ms (its timeout).
    const limit = { requests: 1, windowMs: 800 };
    const callTimeoutMs = 400;
    const { store, close: closeStore } = await openRealStore();
    const recorder = await startRecordingServer();
    const pacer = createPacer(store, [{ key: KEY, limit, callTimeoutMs }]);
    const close = async () => {
      await recorder.close();
      await closeStore();
    };
    const worker = pacedWorker({ store, pacer, recorderUrl: recorder.url, close }, { concurrency: 1, leaseMs: 60_000 });
    const [, live] = await store.enqueue([0, 1].map((index) => ({ kind: 'post', payload: { index }, rateKey: KEY })));
    // The dead process: it claimed the first job with its slot, its call reached the upstream 300 ms
    // later (a slow start), and it died before storing the answer.
    await store.claim({ owner: 'dead-process', limit: 1, leaseMs: 60_000, pacing: pacer.claimPacing(1) });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const deadCallArrivedAt = Date.now();

    // Act
    worker.start();
    await waitFor('the live job to be sent', () => recorder.requests.some((request) => request.jobId === live!.id), 5_000);

    // Assert: a strict upstream never sees the two calls within one window.
    const liveCallArrivedAt = recorder.requests.find((request) => request.jobId === live!.id)!.at;
    expect(liveCallArrivedAt - deadCallArrivedAt).toBeGreaterThanOrEqual(limit.windowMs);
  });

  it('when a claim’s free slot goes to an older unpaced job, then a paced job is not claimed to wait behind it: its call slot stays free until a worker slot is', async () => {
    // Arrange: one slot; a fast unpaced job sets the claim-ahead pace, so the next claim could take a
    // slow unpaced job (the older) and a paced one together. The slow one is held 500 ms.
    const { store, close: closeStore } = await openRealStore();
    const recorder = await startRecordingServer((request) => ((request.body as { slow?: boolean }).slow ? { status: 200, delayMs: 500 } : { status: 200 }));
    const pacer = createPacer(store, [{ key: KEY, limit: LIMIT }]);
    const claims: number[][] = [];
    const worker = createWorker({
      store,
      logger: captureLogs({ level: 'info' }).logger,
      concurrency: 1,
      prefetch: 4,
      prefetchWindowMs: 60_000,
      retrySchedule: [0, 50],
      leaseMs: 5_000,
      maxIdleMs: 1_000,
      pacer,
      registry: createJobRegistry({ post: createPostHandler({ url: recorder.url }), paced: createPostHandler({ url: recorder.url, pacer, bucketKey: KEY }) }),
      onJobsClaimed: (jobs) => void claims.push(jobs.map((job) => job.id)),
    });
    cleanups.push(async () => {
      await worker.stop(1_000);
      await recorder.close();
      await closeStore();
    });
    const [, slow, paced] = await store.enqueue([
      { kind: 'post', payload: { fast: true } },
      { kind: 'post', payload: { slow: true } },
      { kind: 'paced', payload: { paced: true }, rateKey: KEY },
    ]);

    // Act
    worker.start();
    await waitFor('the slow job to reach the upstream', () => recorder.requests.some((request) => request.jobId === slow!.id), 5_000);
    const whileSlowRuns = await store.rateState(KEY, LIMIT.requests, LIMIT.windowMs);
    await waitFor('all three to be sent', () => recorder.requests.length === 3, 5_000);

    // Assert: the paced job was claimed on its own, once the slot was free, and sent at once.
    expect(claims.find((ids) => ids.includes(paced!.id))).toEqual([paced!.id]);
    expect(whileSlowRuns.used).toBe(0);
    expect(recorder.requests.map((request) => request.jobId).slice(1)).toEqual([slow!.id, paced!.id]);
  });
});
