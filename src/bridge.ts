import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { hostname } from 'node:os';

import { startInstanceHeartbeat } from './admin/instance-heartbeat.ts';
import { createApp } from './app.ts';
import type { Config } from './core/config.ts';
import { createHealthRegistry } from './core/health-registry.ts';
import type { Logger } from './core/logger.ts';
import { PACKAGE_VERSION } from './core/package-version.ts';
import { closeGracefully } from './http/graceful-close.ts';
import { createHttpServer } from './http/http-server.ts';
import { listen } from './http/listen.ts';
import { bridgeReadiness } from './http/readiness-checks.ts';
import { startRefusalFlush } from './http/refusals/refusal-flush.ts';
import { createRefusalTally } from './http/refusals/refusal-tally.ts';
import { logIntegrationStates } from './integration-states.ts';
import { createJobHandlers, MOMENTUM_RATE_KEY } from './job-handlers.ts';
import type { Pacer } from './jobs/pacer.ts';
import type { JobRegistry } from './jobs/registry.ts';
import type { JobFinishedEvent } from './jobs/run-job.ts';
import { createWorker, type Worker } from './jobs/worker.ts';
import { countEnqueuedJobs } from './metrics/count-enqueued.ts';
import { createPrometheusMetrics } from './metrics/prometheus-metrics.ts';
import { momentumRateLogKey } from './momentum/delivery-jobs.ts';
import { startRetention } from './retention/retention-timer.ts';
import { secretValues } from './settings.ts';
import { openStore } from './store/open-store.ts';
import type { Job, Store } from './store/types.ts';

export interface RunningBridge {
  server: Server;
  url: string;
  /** Graceful stop: no new requests, in-flight requests and jobs finish within the deadline, resources closed. */
  stop: () => Promise<void>;
}

/**
 * The store the config names, wrapped so every enqueued job is counted, with this bridge's own
 * metrics registry (its queue gauges read the store at scrape time). Benchmarks use it too, so
 * they measure the store exactly as the bridge runs it.
 */
export async function openInstrumentedStore(config: Config, logger: Logger, options: { schema?: string } = {}) {
  const opened = await openStore(config.DATABASE_URL, {
    poolMax: config.DATABASE_POOL_MAX,
    adminPoolMax: config.DATABASE_ADMIN_POOL_MAX,
    adminReadTimeoutMs: config.ADMIN_READ_TIMEOUT,
    logger,
    ...options,
  });
  const telemetry = createPrometheusMetrics({ store: opened, logger });
  return { store: countEnqueuedJobs(opened, telemetry.metrics), telemetry };
}

/** The worker with the settings the config names; benchmarks build theirs with it too. */
export function workerFromConfig(
  config: Config,
  parts: {
    store: Store;
    registry: JobRegistry;
    logger: Logger;
    pacer: Pacer;
    onJobFinished: (event: JobFinishedEvent) => void;
    onJobsClaimed?: (jobs: readonly Job[], at: number) => void;
    /** The worker's lease owner: this instance's id. */
    owner?: string;
  },
): Worker {
  return createWorker({
    ...parts,
    concurrency: config.WORKER_CONCURRENCY,
    prefetch: config.WORKER_PREFETCH,
    retrySchedule: config.RETRY_SCHEDULE,
    secrets: secretValues(config),
    // The lease keeper extends a running job's lease every third of it, so a long Momentum call keeps it.
    leaseMs: config.WORKER_LEASE_MS,
  });
}

/** Opens every resource the config names, wires the app, listens and starts the worker. */
export async function startBridge(config: Config, logger: Logger): Promise<RunningBridge> {
  const { store, telemetry } = await openInstrumentedStore(config, logger);
  // One id names this process everywhere: its job leases, its heartbeat row, the health answer.
  const instance = {
    id: `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
    host: hostname(),
    pid: process.pid,
    version: PACKAGE_VERSION,
    startedAt: Date.now(),
  };
  const health = createHealthRegistry({ secrets: secretValues(config) });
  const runtime = await createJobHandlers(config, store, logger, telemetry.metrics, health).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  logIntegrationStates(logger, health, config);
  const worker = workerFromConfig(config, {
    store,
    registry: runtime.registry,
    logger,
    pacer: runtime.pacer,
    onJobFinished: telemetry.metrics.jobFinished,
    onJobsClaimed: telemetry.metrics.jobsClaimed,
    owner: instance.id,
  });
  const refusals = createRefusalTally();
  const readiness = bridgeReadiness(store, worker);
  const sandbox = runtime.sandbox !== undefined;
  const app = createApp({
    config,
    logger,
    store,
    refusals,
    metrics: telemetry,
    readiness,
    ...(runtime.google ? { googleManager: runtime.google.manager } : {}),
    ...(runtime.microsoft ? { microsoftManager: runtime.microsoft.manager } : {}),
    momentumRate: { pacer: runtime.pacer, key: MOMENTUM_RATE_KEY },
    mappingPreview: runtime.mappingPreview,
    health: { readiness, registry: health, instance, momentum: { sandbox, budget: momentumRateLogKey(sandbox) }, logger },
  });
  const server = createHttpServer(app, config);
  // Before the worker starts: a port that cannot be had stops the start before any job is claimed.
  const port = await listen(server, config).catch(async (error: unknown) => {
    await runtime.close();
    await store.close();
    throw error;
  });
  worker.start();
  // Refused requests are counted in memory and written every few seconds (docs/operations.md, "Refused traffic").
  const refusalFlush = startRefusalFlush({ tally: refusals, store: store.refusals, logger });
  // PostgreSQL may hold several instances: each says it is alive (GET /admin/health lists them). SQLite serves this one alone.
  const heartbeat = store.engine === 'postgres' ? await startInstanceHeartbeat({ store: store.instances, instance, logger }) : undefined;
  // The first re-match sweep, one interval on (it reads one interval back), then on its own schedule.
  if (runtime.startupJobs.length > 0) await store.enqueue(runtime.startupJobs);
  runtime.start();
  // Old rows go in small batches, one instance at a time; the first check a minute on (docs/operations.md, retention).
  const retention = startRetention({
    store,
    leases: store.channels,
    logger,
    days: config.RETENTION_DAYS,
    meetingDays: config.RETENTION_MEETING_DAYS,
    rematchDays: runtime.rules.matching.rematchDays,
  });
  // A wildcard address is not one a client can dial; an IPv6 literal needs brackets in a URL.
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  const url = `http://${host}:${port}`;
  // After listen: Google posts a `sync` notification to PUBLIC_BASE_URL as soon as a channel is made.
  await runtime.google?.start();
  // After listen too: Graph validates the notification URLs while a subscription is created.
  await runtime.microsoft?.start();
  // After listen and the worker: events stored from the first batch on are mapped at once. In the background: Salesforce may not answer yet.
  runtime.pubsub?.start();

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      // Requests and jobs share one deadline: both stop within SHUTDOWN_TIMEOUT_MS.
      // A pass in progress ends after its current batch.
      await Promise.all([closeGracefully(server, config.SHUTDOWN_TIMEOUT_MS), worker.stop(config.SHUTDOWN_TIMEOUT_MS), retention.stop()]);
      // After the server closed: the last requests' refusals are in the final flush.
      await refusalFlush.stop();
      await heartbeat?.stop();
      await runtime.close();
      await store.close();
    })());
  return { server, url, stop };
}
