import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.ts';
import type { Config } from './config.ts';
import { createDeliveryRuntime } from './delivery-runtime.ts';
import { closeGracefully } from './http/graceful-close.ts';
import { createWorker } from './jobs/worker.ts';
import type { Logger } from './logger.ts';
import { openStore } from './store/open-store.ts';

export interface RunningBridge {
  server: Server;
  url: string;
  /** Graceful stop: no new requests, in-flight requests and jobs finish within the deadline, resources closed. */
  stop: () => Promise<void>;
}

/** Opens every resource the config names, starts the worker, wires the app and listens. */
export async function startBridge(config: Config, logger: Logger): Promise<RunningBridge> {
  const store = await openStore(config.DATABASE_URL, { poolMax: config.DATABASE_POOL_MAX, logger });
  const runtime = await createDeliveryRuntime(config, store, logger).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  const worker = createWorker({
    store,
    registry: runtime.registry,
    logger,
    concurrency: config.WORKER_CONCURRENCY,
    retrySchedule: config.RETRY_SCHEDULE,
    // A job must outlive one full Momentum call; the lease keeper extends it while the job runs.
    leaseMs: config.MOMENTUM_TIMEOUT_MS + 30_000,
  });
  const app = createApp({
    config,
    logger,
    store,
    readiness: [
      { name: 'store', check: () => store.ping() },
      // Throw, not `void Promise.reject(…)`: a discarded rejection passes the check and crashes the process.
      {
        name: 'worker',
        check: async () => {
          if (!worker.isRunning()) throw new Error('worker is stopped');
        },
      },
    ],
  });
  worker.start();
  const server = app.listen(config.PORT, config.HOST);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  // A wildcard address is not one a client can dial; an IPv6 literal needs brackets in a URL.
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  const url = `http://${host}:${port}`;

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      // Requests and jobs share one deadline: both stop within SHUTDOWN_TIMEOUT_MS.
      await Promise.all([closeGracefully(server, config.SHUTDOWN_TIMEOUT_MS), worker.stop(config.SHUTDOWN_TIMEOUT_MS)]);
      await runtime.close();
      await store.close();
    })());
  return { server, url, stop };
}
