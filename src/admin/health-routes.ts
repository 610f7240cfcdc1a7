import { healthSchema } from './health-schemas.ts';
import { emptyQuerySchema } from './request-schemas.ts';
import { defineRoute } from './route-spec.ts';

/** "Is it healthy?" (routes.ts lists it with the rest). */
export const HEALTH_ROUTES = {
  getHealth: defineRoute({
    method: 'get',
    path: '/admin/health',
    operationId: 'getHealth',
    mutating: false,
    summary: "Readiness, version, uptime, the store engine, the live instances, every integration's state and whether Momentum is the sandbox",
    description:
      'ready and checks are what GET /readyz answers (200 here either way). instances: on PostgreSQL, those whose heartbeat (every 15 s) was seen in the last instancesSeenWithinSeconds; on SQLite, this one. integrations are as this instance has seen them work, in memory since it started: on (its newest call or message succeeded, or none yet), off (enableWith names the settings that turn it on) or failing (its newest one failed: lastError, lastErrorAt). Momentum also counts a delivery that ended dead on any instance since this one started, while this one has made no call since. momentum.mode is sandbox when MOMENTUM_API_KEY is not set.',
    query: emptyQuerySchema,
    success: { status: 200, description: 'The health answer', schema: healthSchema },
  }),
};
