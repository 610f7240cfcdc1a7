import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp } from '../../../src/app.ts';
import { parseConfig, secretValues } from '../../../src/config.ts';
import { createDeliveryRuntime, MOMENTUM_RATE_KEY, type DeliveryRuntime } from '../../../src/delivery-runtime.ts';
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
  runtime: DeliveryRuntime;
  logs: LogCapture;
  stop(): Promise<void>;
}

/**
 * The bridge as src/bridge.ts assembles it, on a real port: real SQLite store, the real delivery
 * runtime (remap/import handlers, Momentum client) pointed at a fake Momentum, a running worker
 * with a short retry schedule, and the app with the admin API and console.
 */
export async function startBridgeLike(options: { momentum: FakeMomentum; retrySchedule: number[] }): Promise<BridgeLike> {
  const dir = mkdtempSync(path.join(tmpdir(), 'admin-bridge-'));
  const store = await openStore(`sqlite:${path.join(dir, 'bridge.db')}`);
  const config = parseConfig({
    NODE_ENV: 'test',
    ADMIN_API_KEYS: KEY,
    MOMENTUM_API_KEY: MOMENTUM_KEY,
    MOMENTUM_API_BASE_URL: options.momentum.url,
    MOMENTUM_RECEIVER_URL: options.momentum.url,
    MOMENTUM_TIMEOUT_MS: '5000',
    MOMENTUM_RATE_LIMIT: '100/15m',
  });
  const logs = captureLogs({ level: 'info', secrets: secretValues(config) });
  const runtime = await createDeliveryRuntime(config, store, logs.logger);
  const worker = createWorker({ store, registry: runtime.registry, logger: logs.logger, concurrency: 2, retrySchedule: options.retrySchedule, leaseMs: 30_000, pacer: runtime.pacer });
  const app = createApp({ config, logger: logs.logger, readiness: [], store, momentumRate: { pacer: runtime.pacer, key: MOMENTUM_RATE_KEY } });
  worker.start();
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
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
