import express, { type Router } from 'express';

import type { Logger } from '../../../src/core/logger.ts';
import { jsonErrorHandler, jsonNotFound } from '../../../src/http/error-handler.ts';
import { listenOnLoopback, type LoopbackServer } from '../../support/listen-on-loopback.ts';

/**
 * The routers under test in an express app with the bridge's own JSON error handling, listening
 * on a loopback port (Google's fake posts notifications to it like Google would).
 */
export async function listen(routers: Router[], logger: Logger, port = 0): Promise<LoopbackServer> {
  const app = express();
  for (const router of routers) app.use(router);
  app.use(jsonNotFound());
  app.use(jsonErrorHandler(logger));
  return listenOnLoopback(app, port);
}
