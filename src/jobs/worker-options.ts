import type { Logger } from '../core/logger.ts';
import type { Job, Store } from '../store/types.ts';
import type { Pacer } from './pacer.ts';
import type { JobRegistry } from './registry.ts';
import type { JobFinishedEvent } from './run-job.ts';

/* What a worker is built from and what it offers (worker.ts builds it). */

export interface WorkerOptions {
  store: Store;
  registry: JobRegistry;
  logger: Logger;
  /** WORKER_CONCURRENCY: jobs run at once by this worker. */
  concurrency: number;
  /**
   * WORKER_PREFETCH: most jobs claimed ahead of need, waiting for a free slot (default 32). Each
   * claim and each outcome is a write; with jobs waiting, a finished slot starts the next one at
   * once, and the queue is refilled in chunks once half of it is gone, each claim sharing its
   * commit with the outcomes stored meanwhile (see sqlite/group-commit.ts). 0 claims only for
   * free slots.
   */
  prefetch?: number;
  /** Claims ahead no more jobs than finished within this window (default 50 ms): see recent-pace.ts. */
  prefetchWindowMs?: number;
  /** RETRY_SCHEDULE in ms. */
  retrySchedule: readonly number[];
  /** Values never stored in a job's error or attempt (secretValues in src/settings.ts): an upstream may quote what it was sent. */
  secrets?: readonly string[];
  /** How long a claim holds a job; extended every third of it while the job runs. */
  leaseMs: number;
  /** Lease owner; defaults to host:pid:random so two processes on one host never share one. */
  owner?: string;
  now?: () => number;
  random?: () => number;
  /** Longest idle wait before looking at the queue again (catches other processes' expired leases). */
  maxIdleMs?: number;
  onJobFinished?: (event: JobFinishedEvent) => void;
  /** Every claim's jobs, for metrics (claims per delivered call, time waited for the budget). */
  onJobsClaimed?: (jobs: readonly Job[], at: number) => void;
  /**
   * The budgets of paced jobs. Without it, jobs are claimed in priority order with no regard to
   * any budget (tools and tests that run no paced work).
   */
  pacer?: Pacer;
}

export interface Worker {
  readonly owner: string;
  start(): void;
  /** Stops claiming, waits up to `deadlineMs` for running jobs, aborts the rest and releases their leases. */
  stop(deadlineMs: number): Promise<void>;
  isRunning(): boolean;
  activeCount(): number;
}
