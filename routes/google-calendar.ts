import express, { type RequestHandler, Router } from 'express';
import { z } from 'zod';

import { AppError } from '../src/core/errors.ts';
import type { Logger } from '../src/core/logger.ts';
import { type ChannelManager, NOTIFICATIONS_PATH } from '../src/google/channels.ts';
import { GoogleApiError } from '../src/google/google-api-error.ts';
import { createPushReceiver } from '../src/google/push-receiver.ts';
import { hasControlCharacter } from '../src/http/inbound-text.ts';
import type { InboundMetrics } from '../src/metrics/bridge-metrics.ts';
import { countRefusals } from '../src/metrics/refusal-counter.ts';
import type { ChannelStore } from '../src/store/channel-store.ts';
import type { JobQueue } from '../src/store/types.ts';

export const GOOGLE_NOTIFICATIONS_PATH = NOTIFICATIONS_PATH;

export interface GoogleCalendarRouterDeps {
  channels: Pick<ChannelStore, 'getChannel'>;
  store: Pick<JobQueue, 'enqueue'>;
  logger: Logger;
  metrics?: InboundMetrics;
}

/**
 * `POST /calendar/google/notifications` (docs/protocols.md §3): check the channel and its token, then
 * one coalesced sync job and a 200 at once — the sync runs in the worker, never on this path.
 * Node refuses most control characters in a header already; tab and the C1 range (sent as
 * obs-text bytes) get through, and no X-Goog-* value Google sends holds one, so any is a 400.
 */
export function googleCalendarRouter(deps: GoogleCalendarRouterDeps): Router {
  const receive = createPushReceiver({ channels: deps.channels, jobs: deps.store });
  const router = Router();

  router.post(GOOGLE_NOTIFICATIONS_PATH, async (req, res) => {
    const tainted = Object.entries(req.headers).find(([name, value]) => name.startsWith('x-goog-') && [value ?? ''].flat().some(hasControlCharacter));
    if (tainted !== undefined) throw new AppError('invalid_notification', `${tainted[0]} holds a control character`, { status: 400 });
    const outcome = await receive({
      channelId: req.get('x-goog-channel-id'),
      resourceState: req.get('x-goog-resource-state'),
      channelToken: req.get('x-goog-channel-token'),
      resourceId: req.get('x-goog-resource-id'),
      messageNumber: req.get('x-goog-message-number'),
    });
    switch (outcome.kind) {
      case 'invalid':
        throw new AppError('invalid_notification', outcome.message, { status: 400 });
      case 'unknown_channel':
        throw new AppError('unknown_channel', 'no live channel has this X-Goog-Channel-ID', { status: 404 });
      case 'forbidden':
        throw new AppError('channel_token_mismatch', outcome.message, { status: 403 });
      case 'acknowledged':
        deps.metrics?.inboundMessage('google', 'acked');
        deps.logger.debug('google notification acknowledged', { channelId: outcome.channel?.id, state: outcome.state });
        res.status(200).end();
        return;
      case 'sync_enqueued':
        deps.metrics?.inboundMessage('google', 'acked');
        deps.metrics?.inboundNotifications('google', { acked: 1, duplicate: 0 });
        deps.logger.info('google notification: sync enqueued', {
          channelId: outcome.channel.id,
          calendarId: outcome.channel.calendarId,
          jobId: outcome.jobId,
          state: outcome.state,
        });
        res.status(200).end();
    }
  });
  router.all(GOOGLE_NOTIFICATIONS_PATH, (req, res, next) => {
    res.set('Allow', 'POST');
    next(new AppError('method_not_allowed', `${req.method} is not allowed; notifications are POSTed`, { status: 405 }));
  });
  router.use(GOOGLE_NOTIFICATIONS_PATH, countRefusals('google', deps.metrics));
  return router;
}

// An email address is at most 254 characters; the path parameter of DELETE is checked the same way.
const calendarIdSchema = z
  .email({ error: "calendarId must be the calendar owner's email address" })
  .max(254, { error: 'calendarId must be at most 254 characters' })
  .transform((value) => value.toLowerCase());
const calendarBody = z.strictObject({ calendarId: calendarIdSchema });

/**
 * Run-time watched calendars: `GET /admin/calendars`, `POST /admin/calendars {calendarId}`,
 * `DELETE /admin/calendars/:calendarId`. `authorize` is the admin API key check; it is required
 * so this router can never be mounted open.
 */
export function googleCalendarAdminRouter(deps: { manager: ChannelManager; authorize: RequestHandler }): Router {
  const router = Router();
  const view = (status: Awaited<ReturnType<ChannelManager['list']>>[number]) => ({
    calendarId: status.calendarId,
    watching: status.watching,
    addedBy: status.addedBy,
    hasSyncToken: status.syncToken !== null,
    channel: status.channel
      ? { id: status.channel.id, expiration: new Date(status.channel.expiration).toISOString(), createdAt: new Date(status.channel.createdAt).toISOString() }
      : null,
  });

  router.use('/admin/calendars', deps.authorize);
  router.get('/admin/calendars', async (_req, res) => {
    res.json({ calendars: (await deps.manager.list()).map(view) });
  });
  router.post('/admin/calendars', express.json({ limit: '4kb' }), async (req, res) => {
    const parsed = calendarBody.safeParse(req.body);
    if (!parsed.success)
      throw new AppError('invalid_body', 'expected {"calendarId": "<owner email>"}', { status: 400, details: { issues: parsed.error.issues } });
    try {
      res.status(201).json(view(await deps.manager.addCalendar(parsed.data.calendarId)));
    } catch (error) {
      if (!(error instanceof GoogleApiError)) throw error;
      // The calendar is stored as watched: the backstop syncs it and the next upkeep round retries the watch.
      throw new AppError('google_watch_failed', `calendar saved, but Google refused the watch: ${error.message}`, { status: 502 });
    }
  });
  router.delete('/admin/calendars/:calendarId', async (req, res) => {
    const parsed = calendarIdSchema.safeParse(req.params.calendarId);
    if (!parsed.success) throw new AppError('invalid_path', "calendarId must be the calendar owner's email address", { status: 400 });
    const calendarId = parsed.data;
    if (!(await deps.manager.removeCalendar(calendarId))) throw new AppError('not_found', `calendar ${calendarId} is not known`, { status: 404 });
    res.status(204).end();
  });
  return router;
}
