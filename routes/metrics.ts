import { type RequestHandler, Router } from 'express';

import { secretMatcher } from '../src/core/constant-time.ts';
import { AppError } from '../src/core/errors.ts';
import { recordAuthFailure } from '../src/http/auth-failure-limit.ts';
import { bearerToken } from '../src/http/bearer.ts';
import type { MetricsExposition } from '../src/metrics/prometheus-metrics.ts';

export const METRICS_PATH = '/metrics';

export interface MetricsRouterDeps {
  exposition: MetricsExposition;
  /** METRICS_TOKEN: when set, scrapes must send `Authorization: Bearer <token>`. */
  token?: string;
  /** Slows down token guessing: the guard counting failed scrapes per client address (shared with /admin). */
  authFailureLimit?: RequestHandler;
}

function requireToken(token: string): RequestHandler {
  const matches = secretMatcher([token]);
  return (req, res, next) => {
    if (matches(bearerToken(req.get('authorization')))) return next();
    recordAuthFailure(res);
    res.set('WWW-Authenticate', 'Bearer realm="metrics"');
    next(new AppError('unauthorized', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>', { status: 401 }));
  };
}

/** `GET /metrics`: Prometheus text format from the app's own registry. */
export function metricsRouter(deps: MetricsRouterDeps): Router {
  const router = Router();
  const guards = deps.token === undefined ? [] : [...(deps.authFailureLimit ? [deps.authFailureLimit] : []), requireToken(deps.token)];
  router.get(METRICS_PATH, ...guards, async (_req, res) => {
    const text = await deps.exposition.render();
    // Scrapes must always see fresh numbers, never a cached copy from a proxy.
    res.set('Cache-Control', 'no-store').type(deps.exposition.contentType).send(text);
  });
  return router;
}
