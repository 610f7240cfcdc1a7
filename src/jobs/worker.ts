import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { requestContext, type Logger } from '../logger.ts';
import type { Job, Store } from '../store/types.ts';
import { drainActiveJobs, type ActiveJob } from './active-jobs.ts';
import { startLeaseKeeper } from './lease-keeper.ts';
import type { JobRegistry } from './registry.ts';
import { messageOf, runJob, type JobFinishedEvent } from './run-job.ts';

export interface WorkerOptions {
  store: Store;
  registry: JobRegistry;
  logger: Logger;
  /** WORKER_CONCURRENCY: jobs run at once by this worker. */
  concurrency: number;
  /** RETRY_SCHEDULE in ms. */
  retrySchedule: readonly number[];
  /** How long a claim holds a job; extended every third of it while the job runs. */
  leaseMs: number;
  /** Lease owner; defaults to host:pid:random so two processes on one host never share one. */
  owner?: string;
  now?: () => number;
  random?: () => number;
  /** Longest idle wait before looking at the queue again (catches other processes' expired leases). */
  maxIdleMs?: number;
  onJobFinished?: (event: JobFinishedEvent) => void;
}

export interface Worker {
  readonly owner: string;
  start(): void;
  /** Stops claiming, waits up to `deadlineMs` for running jobs, aborts the rest and releases their leases. */
  stop(deadlineMs: number): Promise<void>;
  isRunning(): boolean;
  activeCount(): number;
}

const MIN_IDLE_MS = 25;

export function createWorker(options: WorkerOptions): Worker {
  const { store, logger, concurrency, leaseMs } = options;
  const owner = options.owner ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const now = options.now ?? Date.now;
  const maxIdleMs = options.maxIdleMs ?? 5_000;
  const deps = { ...options, owner, now, random: options.random ?? Math.random };
  // Claimed jobs until their outcome is stored (drained by stop(), kept leased)…
  const active = new Map<number, ActiveJob>();
  // …and those whose handler still runs: the slots counted against `concurrency`.
  const running = new Set<number>();
  let state: 'idle' | 'running' | 'stopping' | 'stopped' = 'idle';
  let claiming: Promise<void> | undefined;
  let wakeAgain = false;
  let timer: NodeJS.Timeout | undefined;
  // Grows while due jobs stay unclaimable (their key is busy in another process), so the loop never spins.
  let idleBackoffMs = MIN_IDLE_MS;
  let unsubscribe = () => {};
  let stopLeaseKeeper = () => {};
  let stopping: Promise<void> | undefined;

  const wake = (): void => {
    if (state !== 'running') return;
    if (claiming) {
      // An enqueue may have committed after the running claim read the queue: look once more.
      wakeAgain = true;
      return;
    }
    // Jobs belong to no request: a wake from inside a request must not lend its request id to job logs.
    claiming = requestContext.exit(fill).finally(() => {
      claiming = undefined;
      // Cleared before waking so a full worker (which claims nothing) cannot loop on it.
      if (wakeAgain) {
        wakeAgain = false;
        wake();
      }
    });
  };

  async function fill(): Promise<void> {
    while (state === 'running') {
      wakeAgain = false;
      const room = concurrency - running.size;
      if (room <= 0) return; // a finishing job wakes the loop
      let jobs: Job[];
      try {
        jobs = await store.claim({ owner, limit: room, leaseMs, now: now() });
      } catch (error) {
        logger.error('claiming jobs failed', { owner, error: messageOf(error) });
        return arm(maxIdleMs);
      }
      // Claimed while stop() began: not started, stop() releases their leases.
      if (state !== 'running') return;
      for (const job of jobs) launch(job);
      if (jobs.length > 0) idleBackoffMs = MIN_IDLE_MS;
      if (jobs.length < room) return armFromQueue();
    }
  }

  function launch(job: Job): void {
    const controller = new AbortController();
    const entry: ActiveJob = { job, controller, abandoned: false, leaseUntil: job.leaseUntil ?? now() + leaseMs, done: Promise.resolve() };
    active.set(job.id, entry);
    running.add(job.id);
    const release = () => {
      if (running.delete(job.id)) wake();
    };
    entry.done = runJob(deps, job, { signal: controller.signal, isAbandoned: () => entry.abandoned, release })
      .catch((error: unknown) => {
        logger.error('job run failed', { owner, jobId: job.id, error: messageOf(error) });
      })
      .finally(() => {
        active.delete(job.id);
        release();
      });
  }

  async function armFromQueue(): Promise<void> {
    let dueAt: number | undefined;
    try {
      dueAt = await store.nextDueAt();
    } catch (error) {
      logger.error('reading the next due job failed', { owner, error: messageOf(error) });
    }
    if (dueAt === undefined) return arm(maxIdleMs);
    const wait = dueAt - now();
    if (wait > 0) return arm(Math.min(wait, maxIdleMs));
    arm(idleBackoffMs);
    idleBackoffMs = Math.min(idleBackoffMs * 2, maxIdleMs);
  }

  function arm(ms: number): void {
    if (state !== 'running') return;
    clearTimeout(timer);
    timer = setTimeout(wake, Math.max(0, ms));
  }

  return {
    owner,
    start() {
      if (state !== 'idle') throw new Error(`worker ${owner} cannot start: it is ${state}`);
      state = 'running';
      unsubscribe = store.onJobsAvailable(wake);
      stopLeaseKeeper = startLeaseKeeper({ store, logger, owner, leaseMs, now, active });
      logger.info('worker started', { owner, concurrency, leaseMs });
      wake();
    },
    stop(deadlineMs) {
      if (state === 'idle' || state === 'stopped') {
        state = 'stopped';
        return stopping ?? Promise.resolve();
      }
      state = 'stopping';
      return (stopping ??= (async () => {
        unsubscribe();
        clearTimeout(timer);
        await claiming;
        const abandoned = await drainActiveJobs(active, deadlineMs);
        stopLeaseKeeper();
        let released = 0;
        try {
          released = await store.releaseLeases(owner);
        } catch (error) {
          logger.error('releasing leases failed; they expire on their own', { owner, error: messageOf(error) });
        }
        state = 'stopped';
        logger.info('worker stopped', { owner, abandoned, released });
      })());
    },
    isRunning: () => state === 'running',
    activeCount: () => active.size,
  };
}
