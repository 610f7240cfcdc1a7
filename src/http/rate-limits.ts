import type { Request, RequestHandler } from 'express';
import { type Options, rateLimit, type RateLimitInfo } from 'express-rate-limit';

import { AppError } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import type { RateLimit } from '../jobs/pacer.ts';

/**
 * Per-client-address limits (express-rate-limit, in memory, per process). The client address is
 * `req.ip`, so behind a load balancer TRUST_PROXY must be set, or every sender shares the
 * balancer's one budget. IPv6 clients are counted per /56, as express-rate-limit does by default.
 */

const passThrough: RequestHandler = (_req, _res, next) => next();

function secondsUntilReset(req: Request): number {
  const info = (req as Request & { rateLimit?: RateLimitInfo }).rateLimit;
  const resetMs = info?.resetTime === undefined ? 1000 : info.resetTime.getTime() - Date.now();
  return Math.max(1, Math.ceil(resetMs / 1000));
}

function baseOptions(limit: RateLimit, logger: Logger, refusal: (seconds: number) => AppError): Partial<Options> {
  return {
    windowMs: limit.windowMs,
    limit: limit.requests,
    // Only Retry-After (set below): the draft RateLimit headers would tell a guesser its budget.
    standardHeaders: false,
    legacyHeaders: false,
    // TRUST_PROXY is checked in config.ts; an X-Forwarded-For header without it is a client's own header
    // (ignored by express), and must not make the library print to the console on every request.
    validate: { trustProxy: false, xForwardedForHeader: false, forwardedHeader: false },
    logger: {
      error: (error, message) => logger.error(message ?? 'rate limiter error', { error }),
      warn: (error, message) => logger.warn(message ?? 'rate limiter warning', { error }),
    },
    handler: (req, res, next) => {
      const seconds = secondsUntilReset(req);
      res.set('Retry-After', String(seconds));
      // Answered by the route's own error handler: a SOAP fault for Salesforce, JSON elsewhere.
      next(refusal(seconds));
    },
  };
}

/**
 * Requests per client address on a public inbound surface. Senders retry what is refused
 * (Salesforce redelivers for 24 h, Google backs off), so a 429 delays, never loses.
 */
export function inboundRateLimit(limit: RateLimit | undefined, logger: Logger): RequestHandler {
  if (limit === undefined) return passThrough;
  return rateLimit(
    baseOptions(limit, logger, (seconds) => new AppError('rate_limited', `too many requests from this address; retry after ${seconds} s`, { status: 429 })),
  );
}
