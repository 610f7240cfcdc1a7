import pg from 'pg';
import { Agent } from 'undici';
import { describe, expect, it } from 'vitest';

import { createJobRegistry } from '../../src/jobs/registry.ts';
import type { JobFinishedEvent } from '../../src/jobs/run-job.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import { openStore } from '../../src/store/open-store.ts';
import { startRecordingServer } from '../fakes/recording-server.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { captureLogs } from '../support/log-capture.ts';
import { TEST_DATABASE_URL, testDatabase } from '../support/real-store.ts';
import { waitFor } from '../support/wait-for.ts';
import { createPostHandler } from './support/post-handler.ts';

const JOBS = 2_000;
const cleanups = cleanupAfterEach();

describe.skipIf(!TEST_DATABASE_URL)(`two workers on one PostgreSQL schema${TEST_DATABASE_URL ? '' : ' (skipped: TEST_DATABASE_URL is unset)'}`, () => {
  it(`when two store instances drain ${JOBS} jobs together, then every job succeeds and none is sent twice`, async () => {
    const database = testDatabase('postgres', 'jobs_two');
    cleanups.push(database.drop);
    const recorder = await startRecordingServer();
    const dispatcher = new Agent({ connections: 16 });
    cleanups.push(async () => {
      await recorder.close();
      await dispatcher.close();
    });
    const first = await openStore(database.url, { poolMax: 4 });
    const second = await openStore(database.url, { poolMax: 4 });
    cleanups.push(async () => {
      await first.close();
      await second.close();
    });
    const finished: Array<JobFinishedEvent & { worker: string }> = [];
    const workers = [first, second].map((store, index) =>
      createWorker({
        store,
        logger: captureLogs({ level: 'warn' }).logger,
        concurrency: 4,
        retrySchedule: [0, 50, 50],
        leaseMs: 30_000,
        owner: `instance-${index}`,
        onJobFinished: (event) => finished.push({ ...event, worker: `instance-${index}` }),
        registry: createJobRegistry({ post: createPostHandler({ url: recorder.url, dispatcher }) }),
      }),
    );
    cleanups.push(async () => {
      await Promise.all(workers.map((worker) => worker.stop(5_000)));
    });
    const jobs = [];
    for (let offset = 0; offset < JOBS; offset += 500) {
      jobs.push(...(await first.enqueue(Array.from({ length: 500 }, (_, index) => ({ kind: 'post', payload: { n: offset + index } })))));
    }

    for (const worker of workers) worker.start();
    await waitFor('every job to finish', () => finished.length >= JOBS, 170_000);

    const counts = recorder.counts();
    expect(counts.size).toBe(JOBS);
    expect([...counts.values()].filter((count) => count !== 1)).toEqual([]);
    expect(jobs.filter((job) => !counts.has(job.id))).toEqual([]);
    expect(finished.filter((event) => event.state !== 'succeeded' || !event.recorded)).toEqual([]);
    // Both instances took a share of the queue.
    expect(finished.filter((event) => event.worker === 'instance-0').length).toBeGreaterThan(0);
    expect(finished.filter((event) => event.worker === 'instance-1').length).toBeGreaterThan(0);
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    const { rows } = await client.query(`SELECT state, count(*)::int AS count, max(attempts) AS attempts FROM ${database.schema!}.jobs GROUP BY state`);
    await client.end();
    expect(rows).toEqual([{ state: 'succeeded', count: JOBS, attempts: 1 }]);
  }, 180_000);
});
