import { createJobRegistry } from '../../../src/jobs/registry.ts';
import type { JobFinishedEvent } from '../../../src/jobs/run-job.ts';
import type { JobHandler } from '../../../src/jobs/types.ts';
import { createWorker, type WorkerOptions } from '../../../src/jobs/worker.ts';
import type { Store } from '../../../src/store/types.ts';
import { type Responder, startRecordingServer } from '../../fakes/recording-server.ts';
import { type Cleanup, cleanupAfterEach } from '../../support/cleanups.ts';
import { captureLogs } from '../../support/log-capture.ts';
import { openRealStore } from '../../support/real-store.ts';
import { createPostHandler } from './post-handler.ts';

export interface WorkerSetupOptions {
  responder?: Responder;
  handlers?: Record<string, JobHandler>;
  worker?: Partial<WorkerOptions>;
}

/**
 * Registers cleanup for the file and returns `setup`: a store, a recorder and a worker whose
 * `post` kind POSTs to the recorder; the worker is not started. `cleanups` takes what a test
 * opens beside it (a rival worker), closed after the test.
 */
export function useWorkerSetup() {
  const cleanups: Cleanup[] = cleanupAfterEach();

  async function setup(options: WorkerSetupOptions = {}) {
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

  return { cleanups, setup };
}

export const state = async (store: Store, id: number) => (await store.getJob(id))?.state;
/** A check for waitFor: the job has reached `expected`. */
export const settled = (store: Store, id: number, expected: string) => async () => (await state(store, id)) === expected;
