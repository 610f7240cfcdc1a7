import { createWriteStream } from 'node:fs';
import { createLogger, type Logger } from '../../src/logger.ts';

/**
 * The bridge's own logger at the given level, writing to /dev/null: the formatting cost of every
 * log line is paid as in production, without a terminal or pipe in the measurement.
 */
export function benchLogger(level = process.env.BENCH_LOG_LEVEL ?? 'info'): Logger {
  return createLogger({ level, stream: createWriteStream('/dev/null') });
}
