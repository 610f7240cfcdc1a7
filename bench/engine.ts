import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { undiciCeiling } from './lib/ceiling.ts';
import { startChild } from './lib/child.ts';
import { momentumClientLoop } from './lib/client-loop.ts';
import { drainRemaps, type DrainResult } from './lib/engine-drain.ts';
import { benchLogger } from './lib/null-logger.ts';
import { PRODUCTION_NODE_FLAGS } from './lib/production-node-flags.ts';
import { benchSchema, dropSchema, postgresUnavailable, postgresUrl } from './lib/pg-schema.ts';
import { type BenchResult, machine, renderMarkdown, type TargetRow, targetRow, writeResult } from './lib/report.ts';
import { perSecond, round } from './lib/stats.ts';
import { type DeepQueueResult, runDeepQueue, SHALLOW_DEPTH } from './engine-deep-queue.ts';

/**
 * bench:engine (issue 3): drain JOBS remap jobs into a loopback fake with pacing off, side by side
 * with a plain undici loop sending the same requests with the same concurrency (the ceiling), on
 * SQLite and PostgreSQL; then the deep-queue measurements (engine-deep-queue.ts). The fake runs in
 * a child process; the engine and the ceiling run in this one, one after the other.
 */

const JOBS = Number(process.env.BENCH_ENGINE_JOBS ?? 20_000);
const CONCURRENCIES = (process.env.BENCH_ENGINE_CONCURRENCY ?? '4,16').split(',').map(Number);
const DEEP_JOBS = Number(process.env.BENCH_DEEP_JOBS ?? 1_000_000);
const CLAIM_NOTE = '300 claims of 4 jobs (each released again, so the depth stays put), then the worker claims and finishes jobs with a handler that succeeds at once';

interface DrainRow {
  engine: 'sqlite' | 'postgres';
  concurrency: number;
  jobsPerSecond: number;
  ceilingPerSecond: number;
  succeeded: number;
  received: number;
  requeued: number;
  /** CPU µs per job (bridge) and per request (ceiling), this process only: the fake runs in its own. */
  cpuPerJob: number;
  ceilingCpuPerRequest: number;
  /** SQLite only: the two halves of a job, measured apart (see splitOfAJob). */
  split?: JobSplit;
}

/**
 * Where a drained job's CPU goes, in the same run: the bridge's Momentum client alone (the call),
 * and the same drain with a client that answers at once (the queue: claim, handler, outcome,
 * commit, log line, metrics). Their sum next to the full drain shows what the two cost together.
 * The drain with a store costing nothing (calls as wired) bounds what any store design could reach.
 */
interface JobSplit {
  clientPerSecond: number;
  clientCpuPerCall: number;
  queuePerSecond: number;
  queueCpuPerJob: number;
  freeStorePerSecond: number;
  freeStoreCpuPerJob: number;
}

/** The fake Momentum's child process. */
type Fake = Awaited<ReturnType<typeof startChild>>;

async function measureEngine(engine: DrainRow['engine'], concurrency: number, fake: Fake): Promise<DrainRow> {
  await fake.ask({ type: 'reset' }, 'reset:reply');
  const ceiling = await undiciCeiling(fake.url, JOBS, concurrency);
  if (ceiling.ok !== JOBS) throw new Error(`ceiling: ${ceiling.ok}/${JOBS} accepted`);

  const split = engine === 'sqlite' ? await splitOfAJob(concurrency, fake) : undefined;

  const dir = mkdtempSync(path.join(tmpdir(), 'bench-engine-'));
  const schema = engine === 'postgres' ? benchSchema(`engine_c${concurrency}`) : undefined;
  const databaseUrl = engine === 'sqlite' ? `sqlite:${path.join(dir, 'engine.db')}` : postgresUrl();
  try {
    const drained = await drainRemaps({
      databaseUrl,
      ...(schema ? { schema } : {}),
      fakeUrl: fake.url,
      jobs: JOBS,
      concurrency,
      logger: benchLogger(),
      beforeStart: async () => void (await fake.ask({ type: 'reset' }, 'reset:reply')),
    });
    const received = Number((await fake.ask({ type: 'count' }, 'count:reply')).count);
    return {
      engine,
      concurrency,
      jobsPerSecond: perSecond(drained.states.succeeded ?? 0, drained.ms),
      ceilingPerSecond: perSecond(ceiling.ok, ceiling.ms),
      succeeded: drained.states.succeeded ?? 0,
      received,
      requeued: drained.requeued,
      cpuPerJob: drained.cpuMicros / Math.max(1, drained.states.succeeded ?? 0),
      ceilingCpuPerRequest: ceiling.cpuMicros / Math.max(1, ceiling.ok),
      ...(split && { split }),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    if (schema) await dropSchema(databaseUrl, schema);
  }
}

async function splitOfAJob(concurrency: number, fake: Fake): Promise<JobSplit> {
  const client = await momentumClientLoop(fake.url, JOBS, concurrency);
  if (client.ok !== JOBS) throw new Error(`client loop: ${client.ok}/${JOBS} accepted`);
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-engine-queue-'));
  let queue: DrainResult;
  let freeStore: DrainResult;
  try {
    queue = await drainRemaps({ databaseUrl: `sqlite:${path.join(dir, 'queue.db')}`, fakeUrl: fake.url, jobs: JOBS, concurrency, logger: benchLogger(), withoutCalls: true });
    freeStore = await drainRemaps({ databaseUrl: `sqlite:${path.join(dir, 'free.db')}`, fakeUrl: fake.url, jobs: JOBS, concurrency, logger: benchLogger(), storeCostsNothing: true });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const succeeded = allSucceeded('drain without calls', queue);
  const freeSucceeded = allSucceeded('drain with a store costing nothing', freeStore);
  return {
    clientPerSecond: perSecond(client.ok, client.ms),
    clientCpuPerCall: client.cpuMicros / client.ok,
    queuePerSecond: perSecond(succeeded, queue.ms),
    queueCpuPerJob: queue.cpuMicros / succeeded,
    freeStorePerSecond: perSecond(freeSucceeded, freeStore.ms),
    freeStoreCpuPerJob: freeStore.cpuMicros / freeSucceeded,
  };
}

function allSucceeded(what: string, drained: DrainResult): number {
  const succeeded = drained.states.succeeded ?? 0;
  if (succeeded !== JOBS) throw new Error(`${what}: ${succeeded}/${JOBS} succeeded`);
  return succeeded;
}

async function warmUpDrain(fakeUrl: string): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-engine-warm-'));
  try {
    await drainRemaps({ databaseUrl: `sqlite:${path.join(dir, 'warm.db')}`, fakeUrl, jobs: 1_000, concurrency: 4, logger: benchLogger() });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function drainTargets(rows: DrainRow[]): TargetRow[] {
  return rows.map((row) =>
    targetRow({
      metric: `${row.engine} drain, concurrency ${row.concurrency}: jobs/s`,
      measured: row.jobsPerSecond,
      unit: 'jobs/s',
      baseline: { label: 'undici loop, same concurrency', value: row.ceilingPerSecond },
      target: row.engine === 'sqlite' ? '≥ 0.5 × ceiling' : 'reported (no target)',
      // Every job must have reached the fake exactly once for the number to count.
      pass: (_m, ratio) => (row.engine === 'sqlite' ? (ratio ?? 0) >= 0.5 && row.received === JOBS && row.succeeded === JOBS : null),
    }),
  );
}

function deepTargets(deep: DeepQueueResult): TargetRow[] {
  const depth = deep.fillDeep.depth;
  return [
    targetRow({
      metric: `peak RSS while enqueueing ${depth.toLocaleString('en-US')} jobs`,
      measured: deep.fillDeep.peakRssMb,
      unit: 'MB',
      baseline: { label: `enqueueing ${SHALLOW_DEPTH.toLocaleString('en-US')}`, value: deep.fillShallow.peakRssMb },
      target: '< 200 MB',
      pass: (m) => m < 200,
    }),
    targetRow({
      metric: `peak RSS while claiming at depth ${depth.toLocaleString('en-US')}`,
      measured: deep.claimDeep.peakRssMb,
      unit: 'MB',
      baseline: { label: `at depth ${SHALLOW_DEPTH.toLocaleString('en-US')}`, value: deep.claimShallow.peakRssMb },
      target: '< 200 MB, flat (≤ 1.25 × shallow)',
      pass: (m, ratio) => m < 200 && (ratio ?? Infinity) <= 1.25,
    }),
    targetRow({
      metric: `claim latency p50 at depth ${depth.toLocaleString('en-US')}`,
      measured: deep.claimDeep.latency.p50,
      unit: 'ms',
      baseline: { label: `at depth ${SHALLOW_DEPTH.toLocaleString('en-US')}`, value: deep.claimShallow.latency.p50 },
      target: 'within 2× of depth 1,000',
      pass: (_m, ratio) => (ratio ?? Infinity) <= 2,
    }),
  ];
}

export async function runEngineBench(): Promise<BenchResult> {
  const startedAt = new Date();
  const machineInfo = machine();
  const notes: string[] = [];
  const rows: DrainRow[] = [];
  const pgUrl = postgresUrl();
  const pgProblem = await postgresUnavailable(pgUrl);
  if (pgProblem) notes.push(`PostgreSQL skipped: ${pgUrl.replace(/\/\/[^@]*@/, '//…@')} did not answer (${pgProblem}).`);

  const fake = await startChild(path.join(import.meta.dirname, 'lib/fake-child.ts'), []);
  try {
    // Warm-up, not measured: the fake's and this process's JIT, connections, the SQLite code paths.
    await undiciCeiling(fake.url, 2_000, 4);
    await warmUpDrain(fake.url);
    for (const engine of pgProblem ? (['sqlite'] as const) : (['sqlite', 'postgres'] as const)) {
      for (const concurrency of CONCURRENCIES) {
        const row = await measureEngine(engine, concurrency, fake);
        console.log(`engine ${engine} c=${concurrency}: ${round(row.jobsPerSecond)} jobs/s (${round(row.cpuPerJob)} µs CPU/job), ceiling ${round(row.ceilingPerSecond)} req/s (${round(row.ceilingCpuPerRequest)} µs CPU/req)`);
        rows.push(row);
      }
    }
  } finally {
    await fake.stop();
  }

  let deep: DeepQueueResult | undefined;
  if (DEEP_JOBS > 0) {
    console.log(`engine deep queue: ${DEEP_JOBS.toLocaleString('en-US')} jobs…`);
    deep = await runDeepQueue(DEEP_JOBS);
  } else notes.push('Deep-queue part skipped (BENCH_DEEP_JOBS=0).');

  notes.push(
    `Drain: ${JOBS.toLocaleString('en-US')} remap jobs enqueued first (not timed), then the bridge's worker (runtime, handlers, Momentum client and metrics as startBridge wires them, MOMENTUM_RATE_LIMIT=off, LOG_LEVEL=info to /dev/null) drains them into a fake Momentum in a child process; the clock stops when the last job is final. The worker claims up to WORKER_PREFETCH (default 32) jobs ahead of its free slots, as in production. The ceiling sends the same bodies with the same concurrency from a bare undici Agent to the same fake, just before. CPU columns: this process's CPU time (every thread: main, GC, thread pool) per job or request; the fake's is not counted in either.`,
    'PostgreSQL runs in its own schema (dropped afterwards) on the same machine, sharing its 2 cores with the bridge and the fake.',
  );
  if (deep) {
    notes.push(
      `Deep queue: every process runs node with the deployment's heap flags (${PRODUCTION_NODE_FLAGS.join(' ')}, as deploy/Dockerfile starts the bridge for its 512Mi limit); with V8's defaults on this 24 GB machine the heap limit is 4 GB and the young generation alone grows past 100 MB during a fast enqueue. SQLite file store, enqueue in batches of ${deep.batch.toLocaleString('en-US')} jobs (one transaction each). Each phase (fill, claim) runs in its own process, so each peak RSS is the kernel's high-water mark for that phase; "claiming" is a fresh process on the filled file (a bridge restarted with a backlog): ${CLAIM_NOTE}.`,
    );
  }
  const failedRows = rows.filter((row) => row.received !== JOBS || row.succeeded !== JOBS);
  if (failedRows.length > 0) notes.push(`WARNING: not every job reached the fake exactly once in ${failedRows.map((r) => `${r.engine} c=${r.concurrency} (${r.received} received, ${r.succeeded} succeeded)`).join('; ')}.`);

  const tables: BenchResult['tables'] = [
    {
      title: `Drain of ${JOBS.toLocaleString('en-US')} remap jobs into a loopback fake (pacing off)`,
      columns: ['Engine', 'Concurrency', 'Bridge jobs/s', 'Ceiling req/s (undici loop)', 'Ratio', 'Bridge CPU µs/job', 'Ceiling CPU µs/req', 'Succeeded', 'Received by fake', 'Re-queued runs'],
      rows: rows.map((row) => [
        row.engine,
        row.concurrency,
        row.jobsPerSecond,
        row.ceilingPerSecond,
        row.jobsPerSecond / row.ceilingPerSecond,
        row.cpuPerJob,
        row.ceilingCpuPerRequest,
        row.succeeded,
        row.received,
        row.requeued,
      ]),
    },
  ];
  const splitRows = rows.flatMap((row) => (row.split ? [{ row, split: row.split }] : []));
  if (splitRows.length > 0) {
    tables.push({
      title: 'Where a drained job goes (SQLite): the call, the queue, and a store costing nothing, measured apart in the same run',
      columns: [
        'Concurrency',
        'Ceiling CPU µs/req',
        'Momentum client alone: calls/s',
        'Client CPU µs/call',
        'Queue alone (client answers at once): jobs/s',
        'Queue CPU µs/job',
        'Client + queue µs',
        'Full drain CPU µs/job',
        'Store costing nothing: jobs/s',
        'Its ratio to the ceiling',
        'Its CPU µs/job',
      ],
      rows: splitRows.map(({ row, split }) => [
        row.concurrency,
        row.ceilingCpuPerRequest,
        split.clientPerSecond,
        split.clientCpuPerCall,
        split.queuePerSecond,
        split.queueCpuPerJob,
        split.clientCpuPerCall + split.queueCpuPerJob,
        row.cpuPerJob,
        split.freeStorePerSecond,
        split.freeStorePerSecond / row.ceilingPerSecond,
        split.freeStoreCpuPerJob,
      ]),
    });
    notes.push(
      'Split of a job (SQLite rows): "Momentum client alone" sends the ceiling\'s requests through the bridge\'s own client (total timeout, abort signal, capped body read, response classification), storing nothing; "queue alone" drains the same jobs through the same worker, store and remap handler, with a client that answers success at once instead of calling the fake; "store costing nothing" drains the same jobs through the same worker, handlers and client into the fake, but claims them from a list in memory and stores no outcome: the most any store design (another engine, the store on a thread of its own) could give the drain. Each runs just before the full drain, at its concurrency.',
    );
  }
  if (deep) {
    tables.push(
      {
        title: 'Deep queue (SQLite): claim latency and memory at depth 1,000 vs full depth',
        columns: [
          'Depth',
          'Claim p50 ms',
          'Claim p90 ms',
          'Claim p99 ms',
          'Worker claim+finish jobs/s',
          'Peak RSS claiming MB',
          'Peak RSS filling MB',
          'Live heap after GC MB',
          'Fill jobs/s',
          'DB file MB',
        ],
        rows: [
          [deep.claimShallow, deep.fillShallow] as const,
          [deep.claimDeep, deep.fillDeep] as const,
        ].map(([claimed, filled]) => [
          claimed.depth,
          claimed.latency.p50,
          claimed.latency.p90,
          claimed.latency.p99,
          claimed.workerJobsPerSecond,
          claimed.peakRssMb,
          filled.peakRssMb,
          filled.liveHeapAfterGcMb,
          filled.perSecond,
          filled.databaseMb,
        ]),
      },
      {
        title: 'RSS while filling, by queue depth',
        columns: ['Depth', 'RSS MB', 'of which V8 heap MB'],
        rows: deep.fillDeep.rssByDepth.map((point) => [point.depth, point.rssMb, point.heapMb]),
      },
    );
  }

  return {
    name: 'engine',
    title: 'Engine: job queue and delivery (npm run bench:engine)',
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - startedAt.getTime(),
    machine: machineInfo,
    settings: { jobs: JOBS, concurrency: CONCURRENCIES.join(','), deepJobs: DEEP_JOBS, postgres: pgProblem ? 'skipped' : 'yes' },
    targets: [...drainTargets(rows), ...(deep ? deepTargets(deep) : [])],
    tables,
    notes,
  };
}

if (import.meta.main) {
  const result = await runEngineBench();
  console.log(`wrote ${writeResult(result)}\n`);
  console.log(renderMarkdown([result], result.startedAt));
}
