import { Router } from 'express';

import { isAppError } from '../src/core/errors.ts';
import type { Logger } from '../src/core/logger.ts';
import type { ReadinessCheck } from '../src/http/readiness-checks.ts';

/** Liveness says the process answers; readiness says its dependencies do too. */
export function healthRouter(checks: readonly ReadinessCheck[], logger: Logger): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok', uptimeSeconds: Math.round(process.uptime()) });
  });
  router.get('/readyz', async (_req, res) => {
    const results = await Promise.all(
      checks.map(async ({ name, check }) => {
        try {
          await check();
          return { name, ok: true };
        } catch (error) {
          logger.warn('readiness check failed', { check: name, error });
          // Any other reason may name hosts or driver internals: it goes to the log, not to the caller.
          return isAppError(error) ? { name, ok: false, reason: error.message } : { name, ok: false };
        }
      }),
    );
    const ready = results.every((result) => result.ok);
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready', checks: results });
  });
  return router;
}
