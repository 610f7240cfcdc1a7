import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { createApp } from '../../../src/app.ts';
import { parseConfig, secretValues } from '../../../src/core/config.ts';
import { createJobHandlers, type JobHandlers, MOMENTUM_RATE_KEY } from '../../../src/job-handlers.ts';
import { createWorker, type Worker } from '../../../src/jobs/worker.ts';
import { openStore } from '../../../src/store/open-store.ts';
import type { Store } from '../../../src/store/types.ts';
import type { FakeMomentum } from '../../fakes/fake-momentum.ts';
import { captureLogs, type LogCapture } from '../../support/log-capture.ts';
import { KEY } from './admin-app.ts';

export const MOMENTUM_KEY = 'momentum-test-key-0123456789';

export interface BridgeLike {
  url: string;
  store: Store;
  worker: Worker;
  runtime: JobHandlers;
  logs: LogCapture;
  stop(): Promise<void>;
}

export interface BridgeLikeOptions {
  momentum: FakeMomentum;
  retrySchedule: number[];
  /** A database to share (another bridge on the same PostgreSQL schema); default a new SQLite file of its own. */
  database?: { url: string; schema?: string };
  /** MOMENTUM_RATE_LIMIT (default 100/15m). */
  momentumRateLimit?: string;
  /** false: the worker is left idle until the test calls `worker.start()` (default true). */
  startWorker?: boolean;
}

/**
 * The bridge as src/bridge.ts assembles it, on a real port: a real store (its own SQLite file unless
 * given a database), the real delivery runtime (remap/import handlers, Momentum client) pointed at
 * a fake Momentum, a running worker with a short retry schedule, and the app with the admin API
 * and console.
 */
export async function startBridgeLike(options: BridgeLikeOptions): Promise<BridgeLike> {
  const dir = options.database === undefined ? mkdtempSync(path.join(tmpdir(), 'admin-bridge-')) : undefined;
  const store =
    options.database === undefined
      ? await openStore(`sqlite:${path.join(dir!, 'bridge.db')}`)
      : await openStore(options.database.url, { poolMax: 4, ...(options.database.schema === undefined ? {} : { schema: options.database.schema }) });
  const config = parseConfig({
    NODE_ENV: 'test',
    ADMIN_API_KEYS: KEY,
    MOMENTUM_API_KEY: MOMENTUM_KEY,
    MOMENTUM_API_BASE_URL: options.momentum.url,
    MOMENTUM_RECEIVER_URL: options.momentum.url,
    MOMENTUM_TIMEOUT_MS: '5000',
    MOMENTUM_RATE_LIMIT: options.momentumRateLimit ?? '100/15m',
  });
  const logs = captureLogs({ level: 'info', secrets: secretValues(config) });
  const runtime = await createJobHandlers(config, store, logs.logger);
  const worker = createWorker({
    store,
    registry: runtime.registry,
    logger: logs.logger,
    concurrency: 2,
    retrySchedule: options.retrySchedule,
    leaseMs: 30_000,
    pacer: runtime.pacer,
  });
  const app = createApp({ config, logger: logs.logger, readiness: [], store, momentumRate: { pacer: runtime.pacer, key: MOMENTUM_RATE_KEY } });
  if (options.startWorker ?? true) worker.start();
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    store,
    worker,
    runtime,
    logs,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await worker.stop(5_000);
      await runtime.close();
      await store.close();
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    },
  };
}
