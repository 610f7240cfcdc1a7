import { afterEach, describe, expect, it } from 'vitest';
import { createRateLimiter } from '../../src/jobs/rate-limiter.ts';
import { createJobRegistry } from '../../src/jobs/registry.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import { startRecordingServer } from './fakes/recording-server.ts';
import { captureLogger } from './support/capture-logger.ts';
import { createPostHandler } from './support/post-handler.ts';
import { openTestStore } from './support/test-store.ts';
import { waitFor } from './support/wait-for.ts';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const LIMIT = { requests: 5, windowMs: 2_000 };
const REFILL_MS = LIMIT.windowMs / LIMIT.requests;
// Tokens are taken just before each request leaves; loopback delivery adds a little, uneven latency.
const DELIVERY_SLACK_MS = 150;

describe('worker pacing', () => {
  it('when jobs outnumber the bucket, then the upstream never sees more requests in any window than the bucket allows', async () => {
    const store = await openTestStore();
    const recorder = await startRecordingServer();
    const limiter = createRateLimiter(store, LIMIT);
    const worker = createWorker({
      store, logger: captureLogger().logger, concurrency: 4, retrySchedule: [0, 50], leaseMs: 5_000, maxIdleMs: 1_000,
      registry: createJobRegistry({ post: createPostHandler({ url: recorder.url, limiter, bucketKey: 'momentum:key-1' }) }),
    });
    cleanups.push(async () => {
      await worker.stop(1_000);
      await recorder.close();
      await store.close();
    });
    const jobs = await store.enqueue(Array.from({ length: 12 }, (_, index) => ({ kind: 'post', payload: { index } })));

    worker.start();
    await waitFor('every job to be sent', () => recorder.requests.length >= jobs.length, 20_000);
    await waitFor('every outcome to be stored', async () => (await Promise.all(jobs.map((job) => store.getJob(job.id)))).every((job) => job?.state === 'succeeded'));

    // A bucket of capacity C refilled every R ms grants at most C + floor(d / R) tokens in any span d.
    const times = recorder.requests.map((request) => request.at).sort((a, b) => a - b);
    for (let first = 0; first < times.length; first += 1) {
      for (let last = first; last < times.length; last += 1) {
        const span = times[last]! - times[first]!;
        const allowed = LIMIT.requests + Math.floor((span + DELIVERY_SLACK_MS) / REFILL_MS);
        expect(last - first + 1, `requests ${first}..${last} within ${span} ms`).toBeLessThanOrEqual(allowed);
      }
    }
    expect([...recorder.counts().values()]).toEqual(Array(jobs.length).fill(1));
    for (const job of jobs) expect((await store.getJob(job.id))?.attempts).toBe(1);
  });
});
