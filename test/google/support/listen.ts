import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import express, { type Router } from 'express';

import type { Logger } from '../../../src/core/logger.ts';
import { jsonErrorHandler, jsonNotFound } from '../../../src/http/error-handler.ts';

/**
 * The routers under test in an express app with the bridge's own JSON error handling, listening
 * on a loopback port (Google's fake posts notifications to it like Google would).
 */
export async function listen(routers: Router[], logger: Logger, port = 0): Promise<{ url: string; close: () => Promise<void> }> {
  const app = express();
  for (const router of routers) app.use(router);
  app.use(jsonNotFound());
  app.use(jsonErrorHandler(logger));
  const server: Server = app.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
