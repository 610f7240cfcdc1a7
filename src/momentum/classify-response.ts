import type { IncomingHttpHeaders } from 'node:http';

import { errorExcerpt } from './error-excerpt.ts';
import { parseRateLimitHeaders, type RateLimitHint } from './rate-limit-headers.ts';
import { remapResponseSchema } from './schemas.ts';

/**
 * What one call to Momentum came to. The client only classifies; whether to retry is the
 * delivery handler's call (its retry classes), and when is the worker's.
 */
export type MomentumOutcome =
  /** 2xx. `requestId` when the body carried one. */
  | { kind: 'success'; status: number; requestId?: string; body: unknown; rateLimit?: RateLimitHint }
  /** 2xx with `accepted: false`: Momentum refused it; retrying will not help (docs/protocols.md §1). */
  | { kind: 'rejected'; status: number; requestId?: string; excerpt: string }
  /** Any other status. `retryAfter` is the raw header. */
  | { kind: 'http_error'; status: number; retryAfter?: string; requestId?: string; excerpt: string; rateLimit?: RateLimitHint }
  | { kind: 'network'; message: string; code?: string }
  | { kind: 'timeout'; message: string }
  /** The caller's own signal stopped the call (worker shutdown, lost lease). */
  | { kind: 'aborted'; message: string };

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function classifyResponse(status: number, headers: IncomingHttpHeaders, text: string, expectRemapResponse: boolean, now = Date.now()): MomentumOutcome {
  const json = parseJson(text);
  const hint = parseRateLimitHeaders(headers, now);
  const rateLimit = hint === undefined ? {} : { rateLimit: hint };
  const bodyRequestId = (json as { requestId?: unknown } | undefined)?.requestId;
  const requestId = typeof bodyRequestId === 'string' ? bodyRequestId : header(headers, 'x-request-id');
  if (status < 200 || status >= 300) {
    return { kind: 'http_error', status, retryAfter: header(headers, 'retry-after'), requestId, excerpt: errorExcerpt(text), ...rateLimit };
  }
  // The success code is undocumented: any 2xx is success unless the body says `accepted: false`.
  if ((json as { accepted?: unknown } | undefined)?.accepted === false) {
    return { kind: 'rejected', status, requestId, excerpt: errorExcerpt(text) };
  }
  if (expectRemapResponse) {
    const parsed = remapResponseSchema.safeParse(json);
    if (parsed.success) return { kind: 'success', status, requestId: parsed.data.requestId, body: parsed.data, ...rateLimit };
  }
  // A 2xx whose body is not the documented shape still means "received": re-sending could duplicate.
  return { kind: 'success', status, requestId, body: json ?? text, ...rateLimit };
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  // Node's happy-eyeballs connect wraps one error per address in an AggregateError.
  const inner = (error as { errors?: unknown[] } | null)?.errors?.[0];
  return inner === undefined ? undefined : codeOf(inner);
}

/** A call that got no response: the total timeout, the caller's abort, or a network failure. */
export function classifyFailure(error: unknown, state: { timedOut: boolean; aborted: boolean }): MomentumOutcome {
  const code = codeOf(error);
  const message = error instanceof Error && error.message !== '' ? error.message : String(code ?? error);
  if (state.timedOut || (code !== undefined && TIMEOUT_CODES.has(code))) return { kind: 'timeout', message: `timed out: ${message}` };
  if (state.aborted) return { kind: 'aborted', message: `aborted: ${message}` };
  return { kind: 'network', message, code };
}
