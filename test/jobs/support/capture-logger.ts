import { PassThrough } from 'node:stream';

import { createLogger, type Logger } from '../../../src/core/logger.ts';

/** A real winston logger whose JSON lines the test can read back. */
export function captureLogger(level = 'info'): { logger: Logger; lines: () => Array<Record<string, unknown>> } {
  const stream = new PassThrough();
  const lines: Array<Record<string, unknown>> = [];
  let rest = '';
  stream.on('data', (chunk: Buffer) => {
    const parts = (rest + chunk.toString('utf8')).split('\n');
    rest = parts.pop() ?? '';
    for (const part of parts) if (part.trim()) lines.push(JSON.parse(part) as Record<string, unknown>);
  });
  return { logger: createLogger({ level, stream }), lines: () => lines };
}
