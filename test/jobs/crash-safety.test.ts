import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { createJobRegistry } from '../../src/jobs/registry.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import { openStore } from '../../src/store/open-store.ts';
import { startRecordingServer } from '../fakes/recording-server.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { captureLogs } from '../support/log-capture.ts';
import { testDatabase } from '../support/real-store.ts';
import { waitFor } from '../support/wait-for.ts';
import { createPostHandler } from './support/post-handler.ts';

const CHILD = fileURLToPath(new URL('./crash-child.ts', import.meta.url));
const LEASE_MS = 600;
const cleanups = cleanupAfterEach();

describe('worker crash safety', () => {
  it('when the worker process is killed with SIGKILL mid-delivery, then a new worker on the same file delivers every job', async () => {
    const { url: databaseUrl, drop } = testDatabase('sqlite', 'jobs-crash');
    cleanups.push(drop);
    // Slow replies keep several deliveries in flight when the kill lands.
    const recorder = await startRecordingServer((_request, seen) => ({ status: 200, delayMs: seen === 0 ? 250 : 0 }));
    cleanups.push(() => recorder.close());
    const seed = await openStore(databaseUrl);
    await seed.migrate();
    const jobs = await seed.enqueue(Array.from({ length: 20 }, (_, index) => ({ kind: 'post', payload: { index } })));
    await seed.close();

    const child = spawn(process.execPath, [CHILD], {
      env: { ...process.env, DATABASE_URL: databaseUrl, RECORDER_URL: recorder.url, LEASE_MS: String(LEASE_MS), OWNER: 'crash-child' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    cleanups.push(() => void child.kill('SIGKILL'));
    await waitFor('the child to deliver a first batch and start a second', () => recorder.requests.length >= 6);
    const inFlightAtKill = recorder.requests.filter((request) => request.repliedAt === undefined).length;
    child.kill('SIGKILL');
    await once(child, 'exit');

    const store = await openStore(databaseUrl);
    cleanups.push(() => store.close());
    const orphaned = (await Promise.all(jobs.map((job) => store.getJob(job.id)))).filter((job) => job?.state === 'running');
    const worker = createWorker({
      store,
      logger: captureLogs({ level: 'info' }).logger,
      concurrency: 4,
      retrySchedule: [0, 50, 50, 50],
      leaseMs: LEASE_MS,
      maxIdleMs: 100,
      registry: createJobRegistry({ post: createPostHandler({ url: recorder.url }) }),
    });
    cleanups.push(() => worker.stop(1_000));
    worker.start();
    await waitFor('every job to succeed', async () => (await Promise.all(jobs.map((job) => store.getJob(job.id)))).every((job) => job?.state === 'succeeded'));

    expect(inFlightAtKill).toBeGreaterThan(0);
    expect(orphaned.length).toBeGreaterThan(0);
    expect(orphaned.every((job) => job?.leaseOwner === 'crash-child')).toBe(true);
    const counts = recorder.counts();
    expect(jobs.filter((job) => !counts.has(job.id))).toEqual([]);
    // At least once, and only the cut-off ones twice: a job whose outcome was stored is never sent again.
    const orphanIds = new Set(orphaned.map((job) => job!.id));
    const resent = [...counts].filter(([, count]) => count > 1).map(([id]) => id);
    expect(resent.filter((id) => !orphanIds.has(id))).toEqual([]);
    expect(await store.getJob(jobs[0]!.id)).toMatchObject({ state: 'succeeded', attempts: 1, leaseOwner: null });
  });
});
