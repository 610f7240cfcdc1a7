import { describe, expect, it } from 'vitest';

import { createJobRegistry } from '../../src/jobs/registry.ts';
import type { JobHandler } from '../../src/jobs/types.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import type { Store } from '../../src/store/types.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { captureLogs } from '../support/log-capture.ts';
import { type Engine, openRealStore, TEST_DATABASE_URL } from '../support/real-store.ts';
import { waitFor } from '../support/wait-for.ts';

const cleanups = cleanupAfterEach();

/** The store of `engine`; the store itself is closed by runPoison's cleanup, its database dropped after it. */
const storeOn = (engine: Engine) => async (): Promise<Store> => {
  const { store, drop } = await openRealStore(engine, 'jobs-refused');
  cleanups.push(drop);
  return store;
};

const engines = [['SQLite', storeOn('sqlite')], ...(TEST_DATABASE_URL ? [['PostgreSQL', storeOn('postgres')] as const] : [])] as const;

async function runPoison(open: () => Promise<Store>, handler: JobHandler) {
  const store = await open();
  const { logger, lines } = captureLogs({ level: 'info' });
  let runs = 0;
  const worker = createWorker({
    store,
    logger,
    concurrency: 1,
    retrySchedule: [0, 10, 10],
    leaseMs: 500,
    maxIdleMs: 100,
    registry: createJobRegistry({ poison: async (job, context) => ((runs += 1), handler(job, context)) }),
  });
  cleanups.push(async () => {
    await worker.stop(1_000);
    await store.close();
  });
  const [job] = await store.enqueue([{ kind: 'poison', payload: {} }]);
  worker.start();
  await waitFor('the job to end', async () => (await store.getJob(job!.id))?.state === 'dead', 10_000);
  // Longer than two leases: a job whose outcome was never stored would have run again by now.
  await new Promise((resolve) => setTimeout(resolve, 1_200));
  return { store, job: (await store.getJob(job!.id))!, attempts: await store.getAttempts(job!.id), runs: () => runs, lines };
}

describe.each(engines)('an outcome the database refuses (%s)', (_engine, open) => {
  it('when a finished job enqueues a follow-up the database cannot hold, then the job ends dead with the database reason and never runs again', async () => {
    const { job, attempts, runs, lines } = await runPoison(open, async () => ({
      kind: 'succeeded',
      enqueue: [{ kind: 'follow-up', payload: {}, eventId: 987_654_321 }],
    }));

    expect(job.state).toBe('dead');
    expect(job.lastError).toMatch(/^outcome could not be stored: .*(FOREIGN KEY|foreign key)/);
    expect(attempts.at(-1)).toMatchObject({ errorClass: 'store_refused' });
    expect(runs()).toBe(1);
    expect(lines().some((line) => line.message === 'job outcome refused by the store; the job ends dead')).toBe(true);
  });
});

// PostgreSQL text cannot hold U+0000 (SQLite can): only there is such an error text refused.
describe.skipIf(!TEST_DATABASE_URL)('an outcome PostgreSQL refuses', () => {
  it('when a retryable error text holds U+0000, then the job ends dead with the database reason instead of looping at every lease expiry', async () => {
    const { job, runs } = await runPoison(storeOn('postgres'), async () => ({ kind: 'retryable', error: 'upstream said \u0000 nonsense' }));

    expect(job.lastError).toMatch(/^outcome could not be stored: invalid byte sequence for encoding "UTF8": 0x00/);
    expect(runs()).toBe(1);
  });
});
