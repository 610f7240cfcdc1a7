import express from 'express';
import helmet from 'helmet';
import { healthRouter, type ReadinessCheck } from '../routes/health.ts';
import { salesforceRouter } from '../routes/salesforce.ts';
import type { Config } from './config.ts';
import { accessLog } from './http/access-log.ts';
import { jsonErrorHandler, jsonNotFound } from './http/error-handler.ts';
import { requestId } from './http/request-id.ts';
import type { Logger } from './logger.ts';
import type { Store } from './store/types.ts';

export interface AppDeps {
  config: Config;
  logger: Logger;
  readiness: ReadinessCheck[];
  /** The durable store; the inbound routes (Salesforce…) are mounted only when it is given. */
  store?: Store;
}

/** Builds the HTTP app from its dependencies; never listens (server.ts and tests do). */
export function createApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(requestId());
  app.use(accessLog(deps.logger));
  app.use(helmet());
  app.use(healthRouter(deps.readiness, deps.logger));
  if (deps.store) app.use(salesforceRouter({ config: deps.config, store: deps.store, logger: deps.logger }));
  app.use(jsonNotFound());
  app.use(jsonErrorHandler(deps.logger));
  return app;
}
