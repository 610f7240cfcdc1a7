import { openSync, writeSync } from 'node:fs';
import { Writable } from 'node:stream';

import { createLogger, type Logger } from '../../src/core/logger.ts';

/**
 * The bridge's own logger at the given level, writing to /dev/null: the formatting cost of every
 * log line is paid as in production, without a terminal or pipe in the measurement. Each line is
 * one synchronous write(2), as process.stdout does for files and pipes on Linux (the deployment's
 * case); an fs.WriteStream would add a thread-pool round trip per line that production never pays.
 */
export function benchLogger(level = process.env.BENCH_LOG_LEVEL ?? 'info'): Logger {
  const fd = openSync('/dev/null', 'w');
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      writeSync(fd, chunk);
      callback();
    },
  });
  return createLogger({ level, stream });
}
