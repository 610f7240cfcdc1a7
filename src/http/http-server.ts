import { createServer, type RequestListener, type Server } from 'node:http';

import type { Config } from '../core/config.ts';

type TimeoutConfig = Pick<Config, 'HEADERS_TIMEOUT_MS' | 'REQUEST_TIMEOUT_MS'>;

/**
 * The node HTTP server with slow-client limits: headers must arrive within HEADERS_TIMEOUT_MS and
 * the whole request within REQUEST_TIMEOUT_MS, or node answers 408 and closes the socket, so a
 * slow-loris sender cannot hold connections open. Neither limit covers the time the app takes to
 * answer. Node enforces both on a periodic sweep (30 s by default, so a short timeout would
 * overshoot by that much); the sweep runs at a quarter of the shorter limit.
 */
export function createHttpServer(listener: RequestListener, config: TimeoutConfig): Server {
  const sweepMs = Math.min(30_000, Math.max(50, Math.floor(Math.min(config.HEADERS_TIMEOUT_MS, config.REQUEST_TIMEOUT_MS) / 4)));
  return createServer({ headersTimeout: config.HEADERS_TIMEOUT_MS, requestTimeout: config.REQUEST_TIMEOUT_MS, connectionsCheckingInterval: sweepMs }, listener);
}
