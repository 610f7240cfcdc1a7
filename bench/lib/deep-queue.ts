import { fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { createPacer } from '../../src/jobs/pacer.ts';
import { createJobRegistry } from '../../src/jobs/registry.ts';
import { createWorker } from '../../src/jobs/worker.ts';
import { MOMENTUM_RATE_KEY } from '../../src/momentum/delivery-jobs.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/types.ts';
import { benchLogger } from './null-logger.ts';
import { PRODUCTION_NODE_FLAGS } from './production-node-flags.ts';
import { remapJobBatches } from './remap-jobs.ts';
import { type Distribution, distribution, mb, peakRss, perSecond } from './stats.ts';

/**
 * The backlog benchmark's measurements: 1 000 000 pending remap jobs in a SQLite file, made as
 * the bridge makes them (paced on Momentum's budget, coalesced per meeting). Every phase runs in
 * a process of its own, so each kernel high-water mark (peak RSS) belongs to that phase alone:
 * - `fill`: enqueue N jobs in batches (one transaction each), RSS sampled by depth;
 * - `claim`: a fresh process on a filled file (a bridge restarted with a backlog): claim latency
 *   of the claim the worker makes (4 jobs, paced on the default budget, each taking a call slot),
 *   every claimed job then put back with its slot given back, so depth and budget stay put; then
 *   the bridge's worker, paced the same way, claims and finishes WORKER_JOBS jobs with a handler
 *   that succeeds at once without a call (so each slot is given back; no HTTP: only the queue).
 * Both are run at depth 1 000 and at full depth, so "flat in queue depth" is a comparison of two
 * measurements, not of one number with a guess.
 */

const TOTAL = Number(process.env.BENCH_DEEP_JOBS ?? 1_000_000);
const BATCH = Number(process.env.BENCH_DEEP_BATCH ?? 1_000);
const WORKER_JOBS = Number(process.env.BENCH_DEEP_WORKER_JOBS ?? 5_000);
const CLAIM_SAMPLES = 300;
const CLAIM_LIMIT = 4; // WORKER_CONCURRENCY's default: what one claim asks for
/** MOMENTUM_RATE_LIMIT's default (100/15m): the budget a production claim reads and draws from. */
const BUDGET = { requests: 100, windowMs: 15 * 60_000 };
export const SHALLOW_DEPTH = 1_000;

export interface FillResult {
  depth: number;
  ms: number;
  perSecond: number;
  peakRssMb: number;
  /** RSS and the V8 heap's share of it (heapTotal) at each depth: what grows, the heap or SQLite. */
  rssByDepth: Array<{ depth: number; rssMb: number; heapMb: number }>;
  /** Live V8 heap after a full GC once the queue is filled (taken after the peak was read). */
  liveHeapAfterGcMb: number;
  databaseMb: number;
}

export interface ClaimResult {
  depth: number;
  latency: Distribution;
  workerJobs: number;
  workerJobsPerSecond: number;
  peakRssMb: number;
}

export interface DeepQueueResult {
  batch: number;
  fillShallow: FillResult;
  fillDeep: FillResult;
  claimShallow: ClaimResult;
  claimDeep: ClaimResult;
}

async function fill(file: string, total: number): Promise<FillResult> {
  const store = await openStore(`sqlite:${file}`, { logger: benchLogger() });
  const checkpoints = [1_000, 10_000, 100_000, 250_000, 500_000, 750_000, total].filter((depth, index, all) => depth <= total && all.indexOf(depth) === index);
  const rssByDepth: FillResult['rssByDepth'] = [];
  let depth = 0;
  const started = performance.now();
  for (const batch of remapJobBatches(0, total, BATCH)) {
    await store.enqueue(batch);
    const before = depth;
    depth += batch.length;
    for (const checkpoint of checkpoints) {
      if (before < checkpoint && depth >= checkpoint) {
        const { rss, heapTotal } = process.memoryUsage();
        rssByDepth.push({ depth: checkpoint, rssMb: mb(rss), heapMb: mb(heapTotal) });
      }
    }
  }
  const ms = performance.now() - started;
  const peakRssMb = mb(peakRss());
  // What the process really holds at this depth, as opposed to heap V8 reserved and has not shrunk yet.
  (globalThis as { gc?: () => void }).gc?.();
  const liveHeapAfterGcMb = mb(process.memoryUsage().heapUsed);
  await store.close();
  return { depth, ms, perSecond: perSecond(depth, ms), peakRssMb, rssByDepth, liveHeapAfterGcMb, databaseMb: mb(statSync(file).size) };
}

/**
 * The claim a worker with 4 free slots makes, `samples` times; only the claim is timed. Each
 * claimed job goes back to pending with its call slot given back, as the worker does with a job
 * it did not run, so the depth stays constant and the budget never runs out.
 */
async function claimLatency(store: Store, samples: number): Promise<Distribution> {
  const owner = 'bench-claim-latency';
  const pacing = createPacer(store, [{ key: MOMENTUM_RATE_KEY, limit: BUDGET }]).claimPacing(CLAIM_LIMIT);
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    const jobs = await store.claim({ owner, limit: CLAIM_LIMIT, leaseMs: 60_000, pacing });
    times.push(performance.now() - started);
    if (jobs.length !== CLAIM_LIMIT) throw new Error(`claim returned ${jobs.length} jobs, expected ${CLAIM_LIMIT}`);
    for (const job of jobs) await store.finish({ jobId: job.id, leaseOwner: owner, outcome: { state: 'deferred', runAt: Date.now() }, rateSlot: 'refund' });
  }
  return distribution(times);
}

async function claim(file: string, depth: number): Promise<ClaimResult> {
  const store = await openStore(`sqlite:${file}`, { logger: benchLogger() });
  const latency = await claimLatency(store, CLAIM_SAMPLES);
  const workerJobs = Math.min(WORKER_JOBS, depth);
  let finished = 0;
  let allDone = () => {};
  const done = new Promise<void>((resolve) => (allDone = resolve));
  const worker = createWorker({
    store,
    // No call made (calledUpstream unset): each job's slot is given back as it finishes.
    registry: createJobRegistry({ remap: async () => ({ kind: 'succeeded' }) }),
    pacer: createPacer(store, [{ key: MOMENTUM_RATE_KEY, limit: BUDGET }]),
    logger: benchLogger(),
    concurrency: CLAIM_LIMIT,
    retrySchedule: [0],
    leaseMs: 60_000,
    onJobFinished: () => {
      if (++finished === workerJobs) allDone();
    },
  });
  const started = performance.now();
  worker.start();
  await done;
  const ms = performance.now() - started;
  await worker.stop(10_000);
  await store.close();
  return { depth, latency, workerJobs, workerJobsPerSecond: perSecond(workerJobs, ms), peakRssMb: mb(peakRss()) };
}

/** Runs one phase in a child process of its own and returns what it reports. */
async function phase<T>(args: string[]): Promise<T> {
  const child = fork(import.meta.filename, args, {
    env: { PATH: process.env.PATH ?? '', ...pick(process.env, ['BENCH_DEEP_BATCH', 'BENCH_DEEP_WORKER_JOBS']) },
    // gc() is only called after a phase's peak has been read (see fill).
    execArgv: ['--expose-gc', ...PRODUCTION_NODE_FLAGS],
  });
  const [message] = (await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(([code]) => Promise.reject(new Error(`deep-queue ${args[0]} exited with ${String(code)}`))),
  ])) as [{ result: T }];
  await once(child, 'exit');
  return message.result;
}

function pick(env: NodeJS.ProcessEnv, names: string[]): Record<string, string> {
  return Object.fromEntries(names.flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]]])));
}

export async function runDeepQueue(total = TOTAL): Promise<DeepQueueResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-deep-'));
  try {
    const shallowFile = path.join(dir, 'shallow.db');
    const deepFile = path.join(dir, 'deep.db');
    const fillShallow = await phase<FillResult>(['fill', shallowFile, String(SHALLOW_DEPTH)]);
    const claimShallow = await phase<ClaimResult>(['claim', shallowFile, String(SHALLOW_DEPTH)]);
    const fillDeep = await phase<FillResult>(['fill', deepFile, String(total)]);
    const claimDeep = await phase<ClaimResult>(['claim', deepFile, String(total)]);
    return { batch: BATCH, fillShallow, fillDeep, claimShallow, claimDeep };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const [mode, file, depth] = process.argv.slice(2);
  if ((mode === 'fill' || mode === 'claim') && file && depth) {
    const result = mode === 'fill' ? await fill(file, Number(depth)) : await claim(file, Number(depth));
    if (process.send) process.send({ result }, undefined, {}, () => process.exit(0));
    else console.log(JSON.stringify(result, null, 2));
  } else {
    console.log(JSON.stringify(await runDeepQueue(), null, 2));
  }
}
