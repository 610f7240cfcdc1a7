import type { Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator } from 'express-rate-limit';

import { AppError } from '../core/errors.ts';
import type { RateLimit } from '../jobs/pacer.ts';

/**
 * ADMIN_AUTH_FAILURE_LIMIT: failed authentications per client address (IPv6 per /56, as the
 * inbound limit counts them), in memory, per process. Past the limit every request from that
 * address is refused with 429 until its window ends, even one with the right key: a guesser
 * who found the key must not be told so by a 200.
 *
 * Only failures count, and they are counted when the authentication fails, not when a request
 * arrives: counting arrivals and forgiving successes once answered (a general-purpose limiter's
 * way) refuses a burst of concurrent requests with a valid key, and lets a burst of concurrent
 * guesses through before any of them is counted. The guard runs before authentication; the
 * authentication calls `recordAuthFailure(res)` when it refuses a key.
 */

interface Window {
  failures: number;
  resetAt: number;
}

const RECORD = 'recordAuthFailure';

const passThrough: RequestHandler = (_req, _res, next) => next();

/** The guard to mount in front of every route that authenticates with a key or token; one budget per address across all of them. */
export function authFailureLimit(limit: RateLimit | undefined, now: () => number = Date.now): RequestHandler {
  if (limit === undefined) return passThrough;
  const windows = new Map<string, Window>();
  let nextSweep = now() + limit.windowMs;

  const current = (key: string, at: number): Window | undefined => {
    const window = windows.get(key);
    if (window !== undefined && window.resetAt <= at) {
      windows.delete(key);
      return undefined;
    }
    return window;
  };
  // Addresses that failed once and went away are dropped at most once a window: memory follows
  // the addresses failing now, not every address that ever failed.
  const sweep = (at: number) => {
    if (at < nextSweep) return;
    nextSweep = at + limit.windowMs;
    for (const [key, window] of windows) if (window.resetAt <= at) windows.delete(key);
  };

  return (req, res, next) => {
    const key = clientKey(req);
    const at = now();
    const window = current(key, at);
    if (window !== undefined && window.failures >= limit.requests) {
      const seconds = Math.max(1, Math.ceil((window.resetAt - at) / 1000));
      res.set('Retry-After', String(seconds));
      // Answered by the route's own error handler (JSON for /admin and /metrics).
      return next(new AppError('too_many_auth_failures', `too many failed authentications from this address; retry after ${seconds} s`, { status: 429 }));
    }
    res.locals[RECORD] = () => {
      const failedAt = now();
      sweep(failedAt);
      const open = current(key, failedAt);
      if (open === undefined) windows.set(key, { failures: 1, resetAt: failedAt + limit.windowMs });
      else open.failures += 1;
    };
    next();
  };
}

/** Counts this request's failed authentication against its address (nothing when no limit guards the route). */
export function recordAuthFailure(res: Response): void {
  const record: unknown = res.locals[RECORD];
  if (typeof record === 'function') (record as () => void)();
}

function clientKey(req: Request): string {
  // req.ip is undefined only for a socket already closed; those share one key rather than none.
  return req.ip === undefined ? 'unknown' : ipKeyGenerator(req.ip, 56);
}
