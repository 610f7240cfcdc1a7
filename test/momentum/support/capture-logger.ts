import { Writable } from 'node:stream';

import { createLogger, type Logger } from '../../../src/core/logger.ts';

/** A real winston logger whose JSON lines land in `lines`, so tests can read what was logged. */
export function captureLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger({ level: 'debug', stream }), lines };
}
