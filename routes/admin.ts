import { Router } from 'express';

import { activity } from '../src/admin/activity.ts';
import { bulkReplay } from '../src/admin/bulk-replay.ts';
import { addCalendar, type CalendarManagers, listCalendars, removeCalendar } from '../src/admin/calendars.ts';
import { deliveryDetail, listDeliveries } from '../src/admin/deliveries.ts';
import { inboundEventDetail, listInboundEvents, reprocessEvent } from '../src/admin/events.ts';
import { healthReport, type HealthSources } from '../src/admin/health.ts';
import { enqueueManualImport, enqueueManualRemap } from '../src/admin/manual-deliveries.ts';
import type { MappingPreview } from '../src/admin/mapping-preview.ts';
import { listMatches, meetingDetail, pinView } from '../src/admin/matches.ts';
import { meetingById } from '../src/admin/meeting-by-id.ts';
import { searchMeetings } from '../src/admin/meeting-search.ts';
import { buildOpenApi } from '../src/admin/openapi.ts';
import { pinMeeting, unpinMeeting } from '../src/admin/pins.ts';
import { pubsubStatus } from '../src/admin/pubsub.ts';
import { refusalSummary } from '../src/admin/refusals.ts';
import { cancelDelivery, replayDelivery } from '../src/admin/replay.ts';
import type { AdminRouteSpec } from '../src/admin/route-spec.ts';
import { ADMIN_ROUTE_LIST, ADMIN_ROUTES } from '../src/admin/routes.ts';
import { adminStats, type RateBucket } from '../src/admin/stats.ts';
import { jobSummary } from '../src/admin/views.ts';
import type { Config } from '../src/core/config.ts';
import type { Logger } from '../src/core/logger.ts';
import { PACKAGE_VERSION } from '../src/core/package-version.ts';
import type { RefusalBatch, Store } from '../src/store/types.ts';
import { adminAuth } from './admin-auth.ts';
import { adminBodyErrors, bindAdminRoute } from './admin-handler.ts';

export interface AdminRouterDeps {
  config: Pick<Config, 'ADMIN_API_KEYS' | 'ADMIN_BULK_MAX' | 'SALESFORCE_PUBSUB'>;
  store: Store;
  logger: Logger;
  /** The Momentum token bucket, for the stats; absent in apps without a delivery runtime. */
  momentumRate?: RateBucket;
  /** Watched calendars at run time; the /admin/calendars routes exist only when it is given. */
  calendars?: CalendarManagers;
  /** The mapping preview on the bridge's own mappers; POST /admin/mapping/preview exists only when it is given. */
  mappingPreview?: MappingPreview;
  /** This instance's refusals counted and not written yet, added to the stored ones by GET /admin/refusals. */
  pendingRefusals?: () => RefusalBatch;
  /** The running bridge's parts the health answer reads; GET /admin/health exists only when they are given. */
  health?: HealthSources;
}

/**
 * The admin API: every route behind adminAuth, inputs checked by the specs' zod schemas. The
 * OpenAPI document describes the routes bound here, so it never lists one this bridge does not serve.
 */
export function adminRouter(deps: AdminRouterDeps): Router {
  const { store, logger, config, calendars, mappingPreview } = deps;
  const router = Router();
  router.use('/admin', adminAuth({ keys: config.ADMIN_API_KEYS }));
  const bound: AdminRouteSpec[] = [];
  const on = <S extends (typeof ADMIN_ROUTE_LIST)[number]>(spec: S, run: Parameters<typeof bindAdminRoute<S>>[3]) => {
    bound.push(spec);
    bindAdminRoute(router, logger, spec, run);
  };
  const R = ADMIN_ROUTES;

  on(R.listEvents, async ({ query }) => ({ body: await listInboundEvents(store, query) }));
  on(R.getEvent, async ({ params }) => ({ body: await inboundEventDetail(store, params.id) }));
  on(R.reprocessEvent, async ({ params }) => {
    const job = await reprocessEvent(store, params.id);
    return { body: { job: jobSummary(job) }, changed: { eventId: params.id, jobId: job.id } };
  });

  // The bulk route is registered before `/:id/…` ones; their paths differ in length, so order is only for reading.
  on(R.bulkReplay, async ({ body }) => {
    const answer = await bulkReplay(store, body, config.ADMIN_BULK_MAX);
    const changed = { filter: body.filter, dryRun: answer.dryRun, matched: answer.matched, replayed: answer.replayed };
    return { body: answer, ...(answer.dryRun ? {} : { changed }) };
  });
  on(R.listDeliveries, async ({ query }) => ({ body: await listDeliveries(store, query) }));
  on(R.getDelivery, async ({ params }) => ({ body: await deliveryDetail(store, params.id) }));
  on(R.replayDelivery, async ({ params }) => {
    const { original, replay } = await replayDelivery(store, params.id);
    return { body: { delivery: jobSummary(replay) }, changed: { deliveryId: original.id, replayId: replay.id, kind: original.kind } };
  });
  on(R.cancelDelivery, async ({ params, keyFingerprint }) => {
    const cancelled = await cancelDelivery(store, params.id, keyFingerprint);
    return { body: { delivery: jobSummary(cancelled) }, changed: { deliveryId: cancelled.id, state: cancelled.state } };
  });

  on(R.manualRemap, async ({ body, query }) => {
    const flags = { triggerSummary: query.triggerSummary ?? false, triggerAiSignals: query.triggerAiSignals ?? false };
    const job = await enqueueManualRemap(store, body, flags);
    return { body: { delivery: jobSummary(job) }, changed: { deliveryId: job.id, kind: 'remap', meeting: job.coalesceKey, flags } };
  });
  on(R.manualImport, async ({ body }) => {
    const job = await enqueueManualImport(store, body);
    return { body: { delivery: jobSummary(job) }, changed: { deliveryId: job.id, kind: 'import' } };
  });

  on(R.searchMeetings, async ({ query }) => ({ body: await searchMeetings(store, query) }));
  on(R.getMeeting, async ({ params }) => ({ body: await meetingDetail(store, params.key) }));
  on(R.getMeetingById, async ({ params }) => ({ body: await meetingById(store, params.id) }));
  on(R.listMatches, async ({ query }) => ({ body: await listMatches(store, query) }));
  on(R.pinMeeting, async ({ params, body, keyFingerprint }) => {
    const { pin, job } = await pinMeeting(store, params.key, body, keyFingerprint);
    return { body: { pin: pinView(pin), job: jobSummary(job) }, changed: { meetingKey: params.key, pinned: pin.records, jobId: job.id } };
  });
  on(R.unpinMeeting, async ({ params }) => {
    const { job } = await unpinMeeting(store, params.key);
    return { changed: { meetingKey: params.key, unpinned: true, ...(job === undefined ? {} : { jobId: job.id }) } };
  });

  on(R.stats, async () => ({ body: await adminStats(store, deps.momentumRate) }));
  on(R.activity, async ({ query }) => ({ body: await activity(store, query) }));
  on(R.refusals, async ({ query }) => ({ body: await refusalSummary(store, query, deps.pendingRefusals) }));
  on(R.getPubSub, async () => ({ body: await pubsubStatus(store, config.SALESFORCE_PUBSUB) }));

  if (calendars !== undefined) {
    on(R.listCalendars, async () => ({ body: await listCalendars(calendars) }));
    on(R.addCalendar, async ({ body }) => {
      const added = await addCalendar(calendars, body.calendarId, body.provider);
      // A refused watch still saved the calendar: that change is logged too, then the 502 answered.
      if ('refused' in added) return { failure: added.refused, changed: { calendarId: body.calendarId, provider: added.provider, watchRefused: true } };
      return { body: added.calendar, changed: { calendarId: body.calendarId, provider: added.provider } };
    });
    on(R.removeCalendar, async ({ params, query }) => {
      await removeCalendar(calendars, params.calendarId, query.provider);
      return { changed: { calendarId: params.calendarId, ...(query.provider === undefined ? {} : { provider: query.provider }) } };
    });
  }

  const { health } = deps;
  if (health !== undefined) on(R.getHealth, async () => ({ body: await healthReport(store, health) }));
  if (mappingPreview !== undefined) on(R.previewMapping, async ({ body }) => ({ body: await mappingPreview(body) }));

  let document: Record<string, unknown> | undefined;
  // Built on the first call, once every route above is bound.
  on(R.openApi, async () => ({ body: (document ??= buildOpenApi(bound, PACKAGE_VERSION)) }));

  router.use('/admin', adminBodyErrors);
  return router;
}
