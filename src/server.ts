import { startBridge } from './bridge.ts';
import { createLogger } from './core/logger.ts';
import { unknownSettings } from './core/unknown-settings.ts';
import { MappingRulesError } from './mapping/load-rules.ts';
import { ConfigError, loadConfig, secretValues, settingNames } from './settings.ts';

/*
 * Process entry: config → resources → listen; signals → graceful stop.
 * A start that cannot succeed (an invalid setting, a database out of reach, a port in use, a
 * mapping file that does not load) ends with exit code 1 and one line per problem on stderr,
 * each naming the setting: no stack trace, no secret.
 */

const cannotStart = (lines: readonly string[]): never => {
  process.stderr.write(lines.map((line) => `crm-sync-bridge: cannot start: ${line}\n`).join(''));
  process.exit(1);
};

let config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    // A misspelt name may be why a setting is missing: say so beside the problems.
    const hints = unknownSettings(process.env, settingNames()).map(
      ({ name, nearest }) => `crm-sync-bridge: unknown setting ${name} ignored (did you mean ${nearest}?)\n`,
    );
    process.stderr.write(`crm-sync-bridge: cannot start, invalid configuration:\n${error.problems.map((line) => `  ${line}\n`).join('')}${hints.join('')}`);
    process.exit(1);
  }
  throw error;
}

const logger = createLogger({ level: config.LOG_LEVEL, secrets: secretValues(config) });

// Names only: the value of a misspelt setting may be a secret.
for (const { name, nearest } of unknownSettings(process.env, settingNames())) {
  logger.warn('unknown setting ignored', { setting: name, didYouMean: nearest });
}

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
  if (error instanceof ConfigError) return cannotStart(error.problems);
  if (error instanceof MappingRulesError) return cannotStart([error.message]);
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
