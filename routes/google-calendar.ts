import { Router } from 'express';

import { AppError } from '../src/core/errors.ts';
import type { Logger } from '../src/core/logger.ts';
import { NOTIFICATIONS_PATH } from '../src/google/channels.ts';
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
