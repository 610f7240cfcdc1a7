import { Router } from 'express';

import type { Logger } from '../src/core/logger.ts';
import { type ReadinessCheck, runReadiness } from '../src/http/readiness-checks.ts';

/** Liveness says the process answers; readiness says its dependencies do too. */
export function healthRouter(checks: readonly ReadinessCheck[], logger: Logger): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok', uptimeSeconds: Math.round(process.uptime()) });
  });
  router.get('/readyz', async (_req, res) => {
    const { ready, checks: results } = await runReadiness(checks, logger);
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready', checks: results });
  });
  return router;
}
