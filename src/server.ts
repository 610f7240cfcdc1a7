import { startBridge } from './bridge.ts';
import { ConfigError, loadConfig, secretValues } from './core/config.ts';
import { createLogger } from './core/logger.ts';
import { MappingRulesError } from './mapping/load-rules.ts';

/* Process entry: config → resources → listen; signals → graceful stop. */

let config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`crm-sync-bridge: cannot start, invalid configuration:\n${error.problems.map((line) => `  ${line}\n`).join('')}`);
    process.exit(1);
  }
  throw error;
}

const logger = createLogger({ level: config.LOG_LEVEL, secrets: secretValues(config) });

// State may be inconsistent after either: log and let the supervisor restart a clean process.
process.on('unhandledRejection', (reason) => {
  logger.error('unhandled promise rejection, exiting', { error: reason });
  process.exitCode = 70;
  setImmediate(() => process.exit(70));
});
process.on('uncaughtException', (error) => {
  logger.error('uncaught exception, exiting', { error });
  process.exitCode = 70;
  setImmediate(() => process.exit(70));
});

const bridge = await startBridge(config, logger).catch((error: unknown) => {
  if (error instanceof MappingRulesError || error instanceof ConfigError) {
    process.stderr.write(`crm-sync-bridge: cannot start: ${error.message}\n`);
    process.exit(1);
  }
  logger.error('startup failed', { error });
  process.exit(1);
});
// Handlers go in before the 'bridge listening' line: supervisors and tests signal as soon as they see it.
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    logger.info('shutting down', { signal, deadlineMs: config.SHUTDOWN_TIMEOUT_MS });
    bridge.stop().then(
      () => {
        logger.info('stopped cleanly');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error('shutdown failed', { error });
        process.exit(1);
      },
    );
  });
}

logger.info('bridge listening', { url: bridge.url, pid: process.pid });
