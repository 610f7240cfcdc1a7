/**
 * Child process of the crash-safety test: a worker on a file-backed SQLite store whose handler
 * POSTs each job to the parent's recorder. The parent kills it with SIGKILL mid-flight.
 * Env: DATABASE_URL, RECORDER_URL, LEASE_MS, OWNER.
 */
import { createLogger } from '../../src/core/logger.ts';
import { createJobRegistry } from '../../src/jobs/registry.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import { openStore } from '../../src/store/open-store.ts';
import { createPostHandler } from './support/post-handler.ts';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const store = await openStore(env('DATABASE_URL'));
await store.migrate();
const worker = createWorker({
  store,
  registry: createJobRegistry({ post: createPostHandler({ url: env('RECORDER_URL') }) }),
  logger: createLogger({ level: 'error' }),
  concurrency: 4,
  retrySchedule: [0, 50, 50, 50],
  leaseMs: Number(env('LEASE_MS')),
  owner: env('OWNER'),
  maxIdleMs: 200,
});
worker.start();
process.stdout.write('ready\n');
