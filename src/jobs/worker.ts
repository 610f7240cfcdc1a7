import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

import { requestContext } from '../core/logger.ts';
import type { Job } from '../store/types.ts';
import { type ActiveJob, drainActiveJobs } from './active-jobs.ts';
import { startLeaseKeeper } from './lease-keeper.ts';
import { giveBackSlots, supersededWhileWaiting } from './put-back.ts';
import { createRecentPace } from './recent-pace.ts';
import { messageOf, runJob } from './run-job.ts';
import type { Worker, WorkerOptions } from './worker-options.ts';

export type { Worker, WorkerOptions } from './worker-options.ts';

/**
 * The worker: claims jobs from the store and runs them, at most `concurrency` at once.
 *
 * States: idle → running (start) → stopping (stop) → stopped. While running, one fill loop at a
 * time claims work; it is woken by the store (an enqueue here or, through LISTEN/NOTIFY, on
 * another instance), by a finishing job, or by its timer, armed for the next due job, the next
 * lease expiry or the next free call slot (`store.nextDueAt`), never longer than `maxIdleMs`.
 *
 * A job is claimed (pending → running under this worker's lease), then waits in `waiting` or runs
 * in a slot; its outcome is stored by runJob, and the lease keeper extends every held lease each
 * third of it. stop() stops claiming, lets running jobs finish until the deadline, aborts the
 * rest, and puts every job it still holds (waiting or abandoned) back to pending.
 *
 * Claim-ahead: a busy worker claims up to `prefetch` jobs beyond its free slots, never more than
 * finished in the last `prefetchWindowMs`, so a freed slot starts the next job at once and claims
 * share commits with outcomes. A job that waited steps aside unsent when a newer job of its
 * meeting was enqueued meanwhile (coalescing holds as if it had stayed pending).
 *
 * Pacing: a paced job (one with a rate key) is claimed only with a call slot of its budget, and
 * only for a free slot, so it starts at once; with the budget spent the claim takes none and the
 * worker sleeps until the next slot frees. Nothing is claimed just to be put back.
 */

const MIN_IDLE_MS = 25;
/**
 * Enough waiting jobs to cover a few milliseconds of a fast drain while the next claim commits:
 * with fewer, the slots run dry between claims (measured: 16 lets them, 32 and 64 do not).
 */
const PREFETCH_DEFAULT = 32;
const PREFETCH_WINDOW_DEFAULT_MS = 50;

export function createWorker(options: WorkerOptions): Worker {
  const { store, logger, concurrency, leaseMs, pacer } = options;
  const owner = options.owner ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const now = options.now ?? Date.now;
  const maxIdleMs = options.maxIdleMs ?? 5_000;
  const prefetch = options.prefetch ?? PREFETCH_DEFAULT;
  const pace = createRecentPace(prefetch, options.prefetchWindowMs ?? PREFETCH_WINDOW_DEFAULT_MS);
  const deps = { ...options, owner, now, random: options.random ?? Math.random };
  const putBack = { store, logger, owner, now };
  // Started jobs until their outcome is stored (drained by stop(), kept leased)…
  const active = new Map<number, ActiveJob>();
  // …those whose handler still runs: the slots counted against `concurrency`…
  const running = new Set<number>();
  // …and jobs claimed ahead, leased but not started, oldest first (released by stop()).
  let waiting: ActiveJob[] = [];
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
      startWaiting();
      const room = concurrency - running.size;
      const ahead = pace.count();
      // Every slot busy and at least half the claim-ahead depth waiting: no claim yet. Claims ahead
      // come in chunks refilling the depth, each committed at once with the outcomes queued so far;
      // topping up one job per finished job would cost a commit each.
      if (room <= 0 && waiting.length >= ahead / 2) return; // a finishing job wakes the loop
      const wanted = room + ahead - waiting.length;
      if (wanted <= 0) return;
      let jobs: Job[];
      try {
        // Paced jobs only for free slots: one is claimed to start at once, with its call slot.
        jobs = await store.claim({ owner, limit: wanted, leaseMs, now: now(), ...(pacer && { pacing: pacer.claimPacing(Math.max(0, room)) }) });
      } catch (error) {
        logger.error('claiming jobs failed', { owner, error: messageOf(error) });
        return arm(maxIdleMs);
      }
      if (jobs.length > 0) notifyClaimed(jobs);
      // Claimed while stop() began: not started, stop() releases their leases (after their call slots).
      if (state !== 'running') return giveBackSlots(putBack, jobs);
      for (const job of jobs) {
        // Its lease expired while this worker still holds it (the lease keeper could not reach the
        // store): the claim renewed the lease, and the run or wait already under way goes on.
        const held = active.get(job.id) ?? waiting.find((entry) => entry.job.id === job.id);
        if (held) {
          held.leaseUntil = job.leaseUntil ?? held.leaseUntil;
          continue;
        }
        const entry = newEntry(job);
        if (running.size < concurrency) start(entry, false);
        else waiting.push(entry);
      }
      if (jobs.length > 0) idleBackoffMs = MIN_IDLE_MS;
      if (jobs.length < wanted) return armFromQueue();
    }
  }

  function notifyClaimed(jobs: readonly Job[]): void {
    try {
      options.onJobsClaimed?.(jobs, now());
    } catch (error) {
      logger.error('onJobsClaimed listener failed', { owner, error: messageOf(error) });
    }
  }

  function newEntry(job: Job): ActiveJob {
    return { job, controller: new AbortController(), abandoned: false, leaseUntil: job.leaseUntil ?? now() + leaseMs, done: Promise.resolve() };
  }

  /** Free slots take the jobs claimed ahead, in claim order. */
  function startWaiting(): void {
    while (state === 'running' && running.size < concurrency && waiting.length > 0) {
      const entry = waiting.shift() as ActiveJob;
      // Its lease could not be kept while it waited: it may be another worker's now.
      if (!entry.controller.signal.aborted) start(entry, true);
    }
  }

  function start(entry: ActiveJob, waited: boolean): void {
    const { job, controller } = entry;
    active.set(job.id, entry);
    running.add(job.id);
    const release = () => {
      if (!running.delete(job.id)) return;
      pace.note();
      startWaiting();
      wake();
    };
    // A job that waited may have been superseded meanwhile: a newer job of its key is pending.
    const superseded = waited && job.coalesceKey !== null ? supersededWhileWaiting(putBack, job) : Promise.resolve(false);
    entry.done = superseded
      .then((skip) => (skip ? undefined : runJob(deps, job, { signal: controller.signal, isAbandoned: () => entry.abandoned, release })))
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
      dueAt = await store.nextDueAt(pacer?.claimPacing(concurrency));
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
      stopLeaseKeeper = startLeaseKeeper({ store, logger, owner, leaseMs, now, leased: () => [...active.values(), ...waiting] });
      logger.info('worker started', { owner, concurrency, prefetch, leaseMs });
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
        // Never started: releaseLeases below puts them back in the queue, once their slots are given back.
        const notStarted = waiting.map((entry) => entry.job);
        waiting = [];
        await giveBackSlots(putBack, notStarted);
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
