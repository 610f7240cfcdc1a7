import { AsyncLocalStorage } from 'node:async_hooks';
import type { Writable } from 'node:stream';

import winston from 'winston';

import { REDACTED, withoutSecrets } from './secret-text.ts';

export type Logger = winston.Logger;

/** Per-request context carried through async calls so every log line knows its request id. */
export const requestContext = new AsyncLocalStorage<{ requestId: string }>();

// winston's own keys for the level and the finished line (its README's custom-format examples use these).
const LEVEL = Symbol.for('level');
const MESSAGE = Symbol.for('message');
// Matched against metadata key names, case-insensitively, wherever they appear.
const SECRET_KEY =
  /^(authorization|x-api-key|api[-_]?key|.*token|.*secret|password|private[-_]?key|cookie|set-cookie|webhook-signature|x-goog-channel-token)$/i;

function redact(value: unknown, secrets: readonly string[], seen: WeakSet<object>, depth: number): unknown {
  if (typeof value === 'string') return withoutSecrets(value, secrets);
  // JSON has no bigint; logform's json format wrote them as strings too.
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object' || depth > 8) return value;
  if (seen.has(value)) return '[circular]';
  seen.add(value);
  if (value instanceof Error) {
    // Operators need the stack and the cause chain to debug a 500; clients never see log lines.
    return {
      name: value.name,
      message: redact(value.message, secrets, seen, depth + 1),
      ...('code' in value ? { code: value.code } : {}),
      ...(value.stack ? { stack: redact(value.stack, secrets, seen, depth + 1) } : {}),
      ...(value.cause !== undefined ? { cause: redact(value.cause, secrets, seen, depth + 1) } : {}),
    };
  }
  // Dates, URLs, Buffers: what JSON would write for them (walking their own keys would give {}).
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return redact((value as { toJSON: () => unknown }).toJSON(), secrets, seen, depth + 1);
  if (Array.isArray(value)) return value.map((item) => redact(item, secrets, seen, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = SECRET_KEY.test(key) && item !== undefined && item !== null && item !== '' ? REDACTED : redact(item, secrets, seen, depth + 1);
  }
  return out;
}

/**
 * Every line in one pass: the request id from the context, a timestamp, an Error given as the
 * message, redaction of secret-named keys and known secret values, then JSON. One format instead
 * of logform's chain of five, and JSON.stringify instead of safe-stable-stringify (which logform
 * reconfigures on every line): redact() already turned cycles into '[circular]' and bigints into
 * strings, so the native serialiser is safe. Measured: 4.1 µs a line before, 3.3 after, paid by
 * every request's access line and every delivered job's log line.
 */
const lineFormat = winston.format((entry, opts: unknown) => {
  // logger.error(new Error(…)) hands the Error itself over as the entry: its message and stack are
  // not enumerable, so copy it into a plain entry first.
  const info: winston.Logform.TransformableInfo =
    entry instanceof Error
      ? { ...entry, level: entry.level, [LEVEL]: (entry as Record<symbol, unknown>)[LEVEL] ?? entry.level, message: entry.message }
      : entry;
  const context = requestContext.getStore();
  if (context && info.requestId === undefined) info.requestId = context.requestId;
  info.timestamp ??= new Date().toISOString();
  if (info.message instanceof Error) {
    const error = info.message;
    Object.assign(info, error);
    info.message = error.message;
  }
  const secrets = (opts as { secrets?: readonly string[] }).secrets ?? [];
  const seen = new WeakSet<object>();
  for (const key of Object.keys(info)) {
    if (key === 'level') continue;
    info[key] = SECRET_KEY.test(key) ? REDACTED : redact(info[key], secrets, seen, 0);
  }
  // When, how bad and what first, whatever order the caller's metadata came in: a line reads left to right.
  const { timestamp, level, message, ...fields } = info;
  info[MESSAGE] = JSON.stringify({ timestamp, level, message, ...fields });
  return info;
});

export interface LoggerOptions {
  level: string;
  /** Literal secret values (API keys, client secrets) to scrub from every line. */
  secrets?: readonly string[];
  /** Where JSON lines go; stdout unless a test captures them. */
  stream?: Writable;
}

export function createLogger(options: LoggerOptions): Logger {
  const transport = options.stream ? new winston.transports.Stream({ stream: options.stream }) : new winston.transports.Console({ stderrLevels: [] });
  // winston filters levels at the transport, after every format ran: a debug line at LOG_LEVEL=info
  // would still be stamped, redacted and serialised (a JSON.stringify per job on the delivery path)
  // only to be dropped. Dropping it first makes a disabled level cost one comparison.
  const enabled = winston.format((info) => (logger.isLevelEnabled(info.level) ? info : false));
  const logger: Logger = winston.createLogger({
    level: options.level,
    format: winston.format.combine(enabled(), lineFormat({ secrets: options.secrets ?? [] })),
    transports: [transport],
  });
  skipDisabledLevels(logger);
  return logger;
}

/**
 * The `enabled` format above still runs after winston has pushed the call through its object-mode
 * stream; `logger.debug(…)` at LOG_LEVEL=info now returns before that (a debug line per delivered
 * job measured ~2.5 % of a drain's CPU). `this`, not `logger`: child loggers inherit these methods.
 */
function skipDisabledLevels(logger: Logger): void {
  const methods = logger as unknown as Record<string, (...args: unknown[]) => Logger>;
  for (const level of Object.keys(logger.levels)) {
    const write = methods[level];
    if (typeof write !== 'function') continue;
    methods[level] = function (this: Logger, ...args: unknown[]) {
      return this.isLevelEnabled(level) ? write.apply(this, args) : this;
    };
  }
}
