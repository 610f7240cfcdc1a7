import express, { type Router } from 'express';

import { type AppDeps, createApp } from '../../src/app.ts';
import type { Logger } from '../../src/core/logger.ts';
import { jsonErrorHandler, jsonNotFound } from '../../src/http/error-handler.ts';
import type { ReadinessCheck } from '../../src/http/readiness-checks.ts';
import { type Config, parseConfig, secretValues } from '../../src/settings.ts';
import type { Store } from '../../src/store/types.ts';
import { listenOnLoopback, type LoopbackServer } from './listen-on-loopback.ts';
import { captureLogs, type LogCapture } from './log-capture.ts';
import { type Engine, openRealStore, type RealStore } from './real-store.ts';

/*
 * The HTTP surface under test, built the way the bridge builds it: the real app from createApp
 * (without a store, or on a real store of either engine), or only the routers under test behind the
 * bridge's own JSON error handling. `env` goes through the real config schema; logs are captured
 * through the real logger, the config's secrets scrubbed as server.ts scrubs them.
 */

export interface BuiltApp {
  app: ReturnType<typeof createApp>;
  config: Config;
  /** Everything the app logged, through the real logger (formats and redaction included). */
  logs: LogCapture;
}

/** The real app with its defaults and no store, with the readiness checks given. */
export function buildApp(options: { env?: Record<string, string>; readiness?: ReadinessCheck[] } = {}): BuiltApp {
  const config = parseConfig(options.env ?? {});
  const logs = captureLogs({ secrets: secretValues(config) });
  const app = createApp({ config, logger: logs.logger, readiness: options.readiness ?? [] });
  return { app, config, logs };
}

/** The app on its store: `store` is the real one (the app may see it wrapped); `close` closes it and drops its database. */
export interface EngineApp extends BuiltApp, RealStore {}

export interface EngineAppOptions {
  env?: Record<string, string>;
  /** Further app dependencies, built on the store the app sees. */
  deps?: (store: Store, logger: Logger) => Partial<AppDeps>;
  /** Wraps the real store before the app sees it, e.g. to make ingest fail. */
  wrap?: (store: Store) => Store;
  /** The captured level (default debug: what a test proves is not logged is not logged even at debug). */
  logLevel?: string;
}

/** The app on a fresh real store of `engine`. */
export async function startEngineApp(engine: Engine, options: EngineAppOptions = {}): Promise<EngineApp> {
  const real = await openRealStore(engine, 'engine-app');
  const config = parseConfig({ NODE_ENV: 'test', LOG_LEVEL: 'debug', ...options.env });
  const logs = captureLogs({ level: options.logLevel ?? 'debug', secrets: secretValues(config) });
  const store = options.wrap ? options.wrap(real.store) : real.store;
  const app = createApp({ config, logger: logs.logger, readiness: [], store, ...options.deps?.(store, logs.logger) });
  return { ...real, app, config, logs };
}

/** Only the routers under test in an express app with the bridge's JSON error handling, listening on loopback. */
export async function listenRouters(routers: Router[], logger: Logger, port = 0): Promise<LoopbackServer> {
  const app = express();
  for (const router of routers) app.use(router);
  app.use(jsonNotFound());
  app.use(jsonErrorHandler(logger));
  return listenOnLoopback(app, port);
}
