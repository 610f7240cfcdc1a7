import { openInstrumentedStore, workerFromConfig } from '../../src/bridge.ts';
import { parseConfig } from '../../src/config.ts';
import { createDeliveryRuntime, MOMENTUM_RATE_KEY } from '../../src/delivery-runtime.ts';
import { createJobRegistry } from '../../src/jobs/registry.ts';
import type { Logger } from '../../src/logger.ts';
import type { MomentumClient } from '../../src/momentum/client.ts';
import { createRemapHandler } from '../../src/momentum/delivery-handlers.ts';
import { storeCostingNothing } from './free-store.ts';
import { remapJob, remapJobBatches } from './remap-jobs.ts';
import { cpuMicrosSince } from './stats.ts';

export interface DrainOptions {
  databaseUrl: string;
  /** PostgreSQL: the schema to create and use. */
  schema?: string;
  fakeUrl: string;
  jobs: number;
  concurrency: number;
  logger: Logger;
  /** Called after the queue is filled and before the clock starts. */
  beforeStart?: () => Promise<void>;
  /** Give up (and report a failure) after this long. */
  timeoutMs?: number;
  /**
   * The remap handler runs as wired (validation, the unchanged rule's read, pacing, outcome) but
   * its client answers success at once instead of calling the fake: the queue's share of a job.
   */
  withoutCalls?: boolean;
  /**
   * The worker claims from a list in memory and its outcomes go nowhere (free-store.ts): the drain
   * with a store that costs nothing, calls to the fake as wired.
   */
  storeCostsNothing?: boolean;
}

/** A Momentum that accepts every remap at once, without a round trip. */
const instantClient: MomentumClient = {
  remap: async () => ({ kind: 'success', status: 200, requestId: 'bench', body: { accepted: true, requestId: 'bench' }, startedAt: Date.now(), durationMs: 0 }),
  importMeeting: async () => ({ kind: 'success', status: 200, body: {}, startedAt: Date.now(), durationMs: 0 }),
  close: async () => {},
};

export interface DrainResult {
  ms: number;
  /** Jobs by final state (succeeded, dead, …). */
  states: Record<string, number>;
  /** Runs that ended in retry or deferred (each one a wasted round trip). */
  requeued: number;
  /** CPU time of this process (every thread) from start until the last job was final. */
  cpuMicros: number;
}

const FINAL = new Set(['succeeded', 'dead', 'skipped', 'cancelled']);

/**
 * Fills a fresh store with `jobs` remap jobs, then times the bridge's own worker (the runtime,
 * handlers, Momentum client and metrics exactly as startBridge wires them, pacing off) until every
 * job reached a final state.
 */
export async function drainRemaps(options: DrainOptions): Promise<DrainResult> {
  const { logger, jobs } = options;
  const config = parseConfig({
    DATABASE_URL: options.databaseUrl,
    MOMENTUM_API_BASE_URL: options.fakeUrl,
    MOMENTUM_RECEIVER_URL: options.fakeUrl,
    MOMENTUM_API_KEY: 'bench-key',
    // Pacing off: the published 100/15m would make this a benchmark of waiting.
    MOMENTUM_RATE_LIMIT: 'off',
    WORKER_CONCURRENCY: String(options.concurrency),
  });
  const { store: opened, telemetry } = await openInstrumentedStore(config, logger, options.schema ? { schema: options.schema } : {});
  const store = options.storeCostsNothing ? storeCostingNothing(opened, Array.from({ length: jobs }, (_, index) => remapJob(index))) : opened;
  const runtime = await createDeliveryRuntime(config, store, logger, telemetry.metrics);
  try {
    if (!options.storeCostsNothing) for (const batch of remapJobBatches(0, jobs, 1000)) await store.enqueue(batch);
    await options.beforeStart?.();

    const states: Record<string, number> = {};
    let finished = 0;
    let requeued = 0;
    let allDone = () => {};
    const done = new Promise<void>((resolve) => (allDone = resolve));
    const registry = options.withoutCalls
      ? createJobRegistry({ remap: createRemapHandler({ client: instantClient, pacer: runtime.pacer, rateKey: MOMENTUM_RATE_KEY, logger, store }) })
      : runtime.registry;
    const worker = workerFromConfig(config, {
      store,
      registry,
      logger,
      pacer: runtime.pacer,
      onJobFinished: (event) => {
        telemetry.metrics.jobFinished(event);
        if (!FINAL.has(event.state)) return void (requeued += 1);
        states[event.state] = (states[event.state] ?? 0) + 1;
        if (++finished === jobs) allDone();
      },
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`drain did not finish within ${options.timeoutMs ?? 600_000} ms (${finished}/${jobs})`)), options.timeoutMs ?? 600_000);
    });
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    worker.start();
    let ms: number;
    let cpuMicros: number;
    try {
      await Promise.race([done, timeout]);
      ms = performance.now() - started;
      cpuMicros = cpuMicrosSince(cpuBefore);
    } finally {
      clearTimeout(timer);
      await worker.stop(10_000);
    }
    return { ms, states, requeued, cpuMicros };
  } finally {
    await runtime.close();
    await opened.close();
  }
}
