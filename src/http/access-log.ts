import type { RequestHandler } from 'express';

import { excerpt } from '../core/excerpt.ts';
import type { Logger } from '../core/logger.ts';

// The path is the sender's: up to Node's 16 kB header limit. The line keeps its first characters.
const PATH_MAX = 200;

/** One line per request with method, matched route, status and duration; its size never follows the request's. */
export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const route = req.route?.path ? `${req.baseUrl}${String(req.route.path)}` : req.baseUrl || undefined;
      logger.info('request', {
        requestId: res.locals.requestId,
        method: req.method,
        path: excerpt(req.path, PATH_MAX),
        route: route ?? '(unmatched)',
        status: res.statusCode,
        ms: Math.round(ms * 100) / 100,
        // What the route wants on record about this request (counts, ids): one line, not two.
        ...(res.locals.logFields as Record<string, unknown> | undefined),
      });
    });
    next();
  };
}
