import type { IncomingHttpHeaders } from 'node:http';

/**
 * What an upstream's rate-limit headers say about the caller's budget. Momentum documents none
 * (docs: Momentum limits), but the same API key may be shared with other tools, so when headers of
 * the common conventions come back the bridge listens: the IETF draft `RateLimit-Remaining` /
 * `RateLimit-Reset` (seconds from now) and the older `X-RateLimit-Remaining` / `X-RateLimit-Reset`
 * (seconds from now, or a Unix time in seconds when it is that large).
 */
export interface RateLimitHint {
  remaining: number;
  /** How long until the budget refills, in ms from when the answer came; absent when no reset was given. */
  resetMs?: number;
}

// A reset this large is a Unix time in seconds (2001 onward), not a delay.
const UNIX_SECONDS_FLOOR = 1_000_000_000;

function first(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function nonNegative(text: string | undefined): number | undefined {
  if (text === undefined || !/^\s*\d+(\.\d+)?\s*$/.test(text)) return undefined;
  return Number(text);
}

export function parseRateLimitHeaders(headers: IncomingHttpHeaders, now: number): RateLimitHint | undefined {
  for (const prefix of ['ratelimit', 'x-ratelimit']) {
    const remaining = nonNegative(first(headers, `${prefix}-remaining`));
    if (remaining === undefined) continue;
    const reset = nonNegative(first(headers, `${prefix}-reset`));
    if (reset === undefined) return { remaining };
    const resetMs = reset >= UNIX_SECONDS_FLOOR ? reset * 1000 - now : reset * 1000;
    // Rounded up, as Retry-After is: a call made early would only meet another 429.
    return { remaining, resetMs: Math.max(0, Math.ceil(resetMs)) };
  }
  return undefined;
}
