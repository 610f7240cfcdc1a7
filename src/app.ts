import express from 'express';
import helmet from 'helmet';

import { adminRouter } from '../routes/admin.ts';
import { adminConsoleRouter } from '../routes/admin-console.ts';
import { CALENDAR_EVENTS_PATH, calendarEventsRouter } from '../routes/calendar-events.ts';
import { GOOGLE_NOTIFICATIONS_PATH, googleCalendarRouter } from '../routes/google-calendar.ts';
import { healthRouter } from '../routes/health.ts';
import { metricsRouter } from '../routes/metrics.ts';
import { microsoftCalendarRouter } from '../routes/microsoft-calendar.ts';
import { OUTBOUND_MESSAGE_PATH, salesforceRouter } from '../routes/salesforce.ts';
import { ZOOM_EVENTS_PATH, zoomRouter } from '../routes/zoom.ts';
import type { HealthSources } from './admin/health.ts';
import type { MappingPreview } from './admin/mapping-preview.ts';
import type { RateBucket } from './admin/stats.ts';
import type { Config } from './core/config.ts';
import type { Logger } from './core/logger.ts';
import { googleCalendarManager } from './google/calendar-manager.ts';
import type { ChannelManager } from './google/channels.ts';
import { accessLog } from './http/access-log.ts';
import { authFailureLimit } from './http/auth-failure-limit.ts';
import { jsonErrorHandler, jsonNotFound } from './http/error-handler.ts';
import { salesforceGuards } from './http/inbound-guards.ts';
import { noStore } from './http/no-store.ts';
import { inboundRateLimit } from './http/rate-limits.ts';
import type { ReadinessCheck } from './http/readiness-checks.ts';
import { recordRefusals } from './http/refusals/record-refusals.ts';
import type { RefusalTally } from './http/refusals/refusal-tally.ts';
import { requestId } from './http/request-id.ts';
import { noopMetrics } from './metrics/bridge-metrics.ts';
import { reportInbound } from './metrics/inbound-health.ts';
import type { PrometheusMetrics } from './metrics/prometheus-metrics.ts';
import { microsoftCalendarManager } from './microsoft/calendar-manager.ts';
import { LIFECYCLE_PATH, NOTIFICATIONS_PATH, type SubscriptionManager } from './microsoft/subscriptions.ts';
import type { Store } from './store/types.ts';

export interface AppDeps {
  config: Config;
  logger: Logger;
  readiness: ReadinessCheck[];
  /** The durable store; the inbound routes (Salesforce…) are mounted only when it is given. */
  store?: Store;
  /** The app's own metrics registry and recorder; GET /metrics is mounted only when it is given. */
  metrics?: PrometheusMetrics;
  /** Google Calendar channel manager; the admin API serves /admin/calendars through it only when it is given. */
  googleManager?: ChannelManager;
  /** Microsoft 365 subscription manager: the Graph notification routes accept items and /admin/calendars lists mailboxes only when it is given. */
  microsoftManager?: SubscriptionManager;
  /** The Momentum token bucket (rate limiter and key), shown by GET /admin/stats. */
  momentumRate?: RateBucket;
  /** The mapping preview on the bridge's own mappers; POST /admin/mapping/preview is served only when it is given. */
  mappingPreview?: MappingPreview;
  /** Counts refused inbound requests (docs/operations.md, "Refused traffic"); GET /admin/refusals adds what it holds to the stored counts. */
  refusals?: RefusalTally;
  /** What GET /admin/health reads; the inbound routes report their messages to its registry. Served only when it is given. */
  health?: HealthSources;
}

/** Every inbound route a sender posts to: a refusal on one of them is counted under its path. */
export const INBOUND_ROUTES = [OUTBOUND_MESSAGE_PATH, GOOGLE_NOTIFICATIONS_PATH, NOTIFICATIONS_PATH, LIFECYCLE_PATH, ZOOM_EVENTS_PATH, CALENDAR_EVENTS_PATH];

/** Builds the HTTP app from its dependencies; never listens (server.ts and tests do). */
export function createApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  // Client addresses (rate limits, the Salesforce allowlist, logs) as TRUST_PROXY says to compute them.
  app.set('trust proxy', deps.config.TRUST_PROXY);
  app.use(requestId());
  app.use(accessLog(deps.logger));
  // Before any route or limiter: a refusal by any of them (rate limit, size, signature…) is counted.
  if (deps.refusals) app.use(recordRefusals({ tally: deps.refusals, logger: deps.logger, routes: INBOUND_ROUTES, salesforceRoute: OUTBOUND_MESSAGE_PATH }));
  app.use(helmet());
  app.use(healthRouter(deps.readiness, deps.logger));
  // One budget of failed authentications per address, whether it guesses admin keys or the metrics token.
  const authFailures = authFailureLimit(deps.config.ADMIN_AUTH_FAILURE_LIMIT);
  if (deps.metrics) {
    const token = deps.config.METRICS_TOKEN;
    const auth = token === undefined ? {} : { token, authFailureLimit: authFailures };
    app.use(metricsRouter({ exposition: deps.metrics.exposition, ...auth }));
  }
  app.use('/calendar', inboundRateLimit(deps.config.INBOUND_RATE_LIMIT, deps.logger));
  app.use('/recordings', inboundRateLimit(deps.config.INBOUND_RATE_LIMIT, deps.logger));
  // Each acknowledged message, and each one that could not be stored, also tells the health answer how its integration does.
  const metrics = deps.health ? reportInbound(deps.metrics?.metrics ?? noopMetrics, deps.health.registry) : deps.metrics?.metrics;
  if (deps.store) {
    const guards = salesforceGuards(deps.config, deps.logger);
    app.use(salesforceRouter({ config: deps.config, store: deps.store, logger: deps.logger, guards, ...(metrics ? { metrics } : {}) }));
  }
  if (deps.store) {
    const inboundMetrics = metrics ? { metrics } : {};
    app.use(calendarEventsRouter({ config: deps.config, store: deps.store, logger: deps.logger, ...inboundMetrics }));
    app.use(googleCalendarRouter({ channels: deps.store.channels, store: deps.store, logger: deps.logger, ...inboundMetrics }));
    app.use(zoomRouter({ config: deps.config, store: deps.store, logger: deps.logger, ...inboundMetrics }));
    app.use(
      microsoftCalendarRouter({
        subscriptions: deps.microsoftManager ? deps.store.subscriptions : undefined,
        store: deps.store,
        logger: deps.logger,
        maxBody: deps.config.CALENDAR_MAX_BODY,
        ...inboundMetrics,
      }),
    );
  }
  // The console's static files need no key (they hold no data) and keep their own caching; every
  // /admin API answer after them is never cached and every /admin API call needs a key.
  if (deps.store) app.use(adminConsoleRouter({ adminEnabled: deps.config.ADMIN_API_KEYS.length > 0 }));
  app.use('/admin', noStore(), authFailures);
  if (deps.store) {
    const optional = {
      ...(deps.momentumRate ? { momentumRate: deps.momentumRate } : {}),
      ...(deps.mappingPreview ? { mappingPreview: deps.mappingPreview } : {}),
      ...(deps.refusals ? { pendingRefusals: deps.refusals.pending } : {}),
      ...(deps.health ? { health: deps.health } : {}),
      ...(deps.googleManager || deps.microsoftManager
        ? {
            calendars: {
              ...(deps.googleManager ? { google: googleCalendarManager(deps.googleManager) } : {}),
              ...(deps.microsoftManager ? { microsoft: microsoftCalendarManager(deps.microsoftManager) } : {}),
            },
          }
        : {}),
    };
    app.use(adminRouter({ config: deps.config, store: deps.store, logger: deps.logger, ...optional }));
  }
  app.use(jsonNotFound());
  app.use(jsonErrorHandler(deps.logger));
  return app;
}
