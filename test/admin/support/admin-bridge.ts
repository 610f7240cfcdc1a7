import { createApp } from '../../../src/app.ts';
import { openInstrumentedStore, workerFromConfig } from '../../../src/bridge.ts';
import { createJobHandlers, MOMENTUM_RATE_KEY } from '../../../src/job-handlers.ts';
import { parseConfig, secretValues } from '../../../src/settings.ts';
import type { Store } from '../../../src/store/types.ts';
import type { FakeMomentum } from '../../fakes/fake-momentum.ts';
import { listenOnLoopback } from '../../support/listen-on-loopback.ts';
import { captureLogs } from '../../support/log-capture.ts';
import type { TestDatabase } from '../../support/real-store.ts';
import { startTestBridge, type TestBridge } from '../../support/test-bridge.ts';
import { KEY } from './admin-app.ts';

export const MOMENTUM_KEY = 'momentum-test-key-0123456789';

export interface AdminBridgeOptions {
  momentum: FakeMomentum;
  /** RETRY_SCHEDULE, in ms. */
  retrySchedule: number[];
  /** A database to share (another bridge on the same PostgreSQL schema); default a SQLite file of its own. */
  database?: TestDatabase;
  /** MOMENTUM_RATE_LIMIT (default 100/15m). */
  momentumRateLimit?: string;
}

/** The admin API key, Momentum at the fake, a short retry schedule, two worker slots. */
function adminBridgeEnv(options: AdminBridgeOptions): Record<string, string> {
  return {
    ADMIN_API_KEYS: KEY,
    MOMENTUM_API_KEY: MOMENTUM_KEY,
    MOMENTUM_API_BASE_URL: options.momentum.url,
    MOMENTUM_RECEIVER_URL: options.momentum.url,
    MOMENTUM_TIMEOUT_MS: '5000',
    MOMENTUM_RATE_LIMIT: options.momentumRateLimit ?? '100/15m',
    RETRY_SCHEDULE: options.retrySchedule.join(','),
    WORKER_CONCURRENCY: '2',
    WORKER_LEASE_MS: '30000',
  };
}

/** The whole bridge (startBridge) with the admin API and console, forwarding to a fake Momentum. */
export function startAdminBridge(options: AdminBridgeOptions): Promise<TestBridge> {
  return startTestBridge({ env: adminBridgeEnv(options), logLevel: 'info', ...(options.database ? { database: options.database } : {}) });
}

export interface IdleAdminBridge {
  url: string;
  /** The bridge's own store. */
  store(): Promise<Store>;
  /** Starts the worker, idle until now. */
  startWorker(): void;
  stop(): Promise<void>;
}

/**
 * The same bridge with its worker idle until the test starts it, for races that must end before
 * any job runs. startBridge starts its worker at once, so this one is assembled from the parts
 * src/bridge.ts exports (openInstrumentedStore, workerFromConfig) the way startBridge assembles them.
 */
export async function startIdleAdminBridge(options: AdminBridgeOptions & { database: TestDatabase }): Promise<IdleAdminBridge> {
  const config = parseConfig({
    NODE_ENV: 'test',
    DATABASE_URL: options.database.url,
    DATABASE_POOL_MAX: '4',
    MOMENTUM_READBACK: 'off',
    ...adminBridgeEnv(options),
  });
  const logs = captureLogs({ level: 'info', secrets: secretValues(config) });
  const { store, telemetry } = await openInstrumentedStore(config, logs.logger);
  const runtime = await createJobHandlers(config, store, logs.logger, telemetry.metrics);
  const worker = workerFromConfig(config, {
    store,
    registry: runtime.registry,
    logger: logs.logger,
    pacer: runtime.pacer,
    onJobFinished: telemetry.metrics.jobFinished,
    onJobsClaimed: telemetry.metrics.jobsClaimed,
  });
  const app = createApp({
    config,
    logger: logs.logger,
    store,
    metrics: telemetry,
    readiness: [],
    momentumRate: { pacer: runtime.pacer, key: MOMENTUM_RATE_KEY },
  });
  const server = await listenOnLoopback(app);
  return {
    url: server.url,
    store: async () => store,
    startWorker: () => worker.start(),
    async stop() {
      await server.close();
      await worker.stop(5_000);
      await runtime.close();
      await store.close();
    },
  };
}
