import { type RunningBridge, startBridge } from '../../src/bridge.ts';
import { type Config, parseConfig, secretValues } from '../../src/settings.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/types.ts';
import { captureLogs, type LogCapture } from './log-capture.ts';
import { type Engine, type TestDatabase, testDatabase } from './real-store.ts';

/*
 * The whole bridge as server.ts starts it (startBridge: store, job handlers, worker, pacer, app,
 * metrics, Google watching when configured) on loopback port 0, from settings parsed by the real
 * config schema. A wiring slip in src/bridge.ts or src/job-handlers.ts fails the tests built on it.
 */

export interface TestBridge extends RunningBridge {
  config: Config;
  logs: LogCapture;
  /** The bridge's DATABASE_URL. */
  databaseUrl: string;
  /** SQLite: the bridge's database file, for the readers in stored-rows.ts. */
  file?: string;
  /**
   * A store of the test's own on the bridge's database (opened on first use, closed by stop()):
   * reads and seeding beside the running bridge, as a second instance would.
   */
  store(): Promise<Store>;
  /** Stops the bridge gracefully (idempotent), then closes the test's store and drops a database the harness made. */
  stop(): Promise<void>;
}

export interface TestBridgeOptions {
  /** Settings on top of PORT=0, HOST=127.0.0.1, NODE_ENV=test and MOMENTUM_READBACK=off. */
  env?: Record<string, string>;
  /** The database to run on (shared by other bridges, dropped by its owner); else `env.DATABASE_URL`, else a database of its own on `engine`. */
  database?: TestDatabase;
  /** The engine of the database the harness makes when none is given (default SQLite); dropped by stop(). */
  engine?: Engine;
  /** The captured log level (default warn). */
  logLevel?: string;
}

export async function startTestBridge(options: TestBridgeOptions = {}): Promise<TestBridge> {
  const own = options.database === undefined && options.env?.DATABASE_URL === undefined ? testDatabase(options.engine ?? 'sqlite', 'bridge') : undefined;
  const database = options.database ?? own;
  const config = parseConfig({
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    ...(database ? { DATABASE_URL: database.url } : {}),
    // On by default with an API key (every test bridge has one): a test of read-back turns it on; in the
    // others, its listing calls MOMENTUM_READBACK_DELAY later would stay pending past the test.
    MOMENTUM_READBACK: 'off',
    ...options.env,
  });
  const logs = captureLogs({ level: options.logLevel ?? 'warn', secrets: secretValues(config) });
  const bridge = await startBridge(config, logs.logger).catch(async (error: unknown) => {
    await own?.drop();
    throw error;
  });
  let store: Promise<Store> | undefined;
  return {
    ...bridge,
    config,
    logs,
    databaseUrl: config.DATABASE_URL,
    ...(database?.file === undefined ? {} : { file: database.file }),
    store: () => (store ??= openStore(config.DATABASE_URL, { poolMax: 2 })),
    async stop() {
      await bridge.stop();
      await (await store)?.close();
      store = undefined;
      await own?.drop();
    },
  };
}
