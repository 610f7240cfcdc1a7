import { Writable } from 'node:stream';

import { createLogger, type Logger } from '../../src/core/logger.ts';

export type CapturedLine = Record<string, unknown>;

export interface LogCapture {
  /** A real logger from src/logger.ts (same formats and redaction) writing into memory. */
  logger: Logger;
  /** Everything written so far, exactly as it would reach stdout. */
  text: () => string;
  /** The JSON lines written so far, parsed. */
  lines: () => CapturedLine[];
  /**
   * Resolves with the first line (already written or still to come) matching. Use it for lines
   * written after a response was sent, such as the access log on `finish`.
   */
  waitForLine: (predicate: (line: CapturedLine) => boolean) => Promise<CapturedLine>;
}

export function captureLogs(options: { level?: string; secrets?: readonly string[] } = {}): LogCapture {
  const chunks: string[] = [];
  const listeners = new Set<() => void>();
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      chunks.push(chunk.toString());
      for (const listener of listeners) listener();
      callback();
    },
  });
  const logger = createLogger({ level: options.level ?? 'debug', secrets: options.secrets ?? [], stream });
  const text = () => chunks.join('');
  const lines = () =>
    text()
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as CapturedLine);
  const waitForLine = (predicate: (line: CapturedLine) => boolean) =>
    new Promise<CapturedLine>((resolve) => {
      const look = () => {
        const found = lines().find(predicate);
        if (found === undefined) return;
        listeners.delete(look);
        resolve(found);
      };
      listeners.add(look);
      look();
    });
  return { logger, text, lines, waitForLine };
}
