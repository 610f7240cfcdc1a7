import express, { Router } from 'express';

import { AppError } from '../src/core/errors.ts';
import type { Logger } from '../src/core/logger.ts';
import { bodyTooLarge, settingLimit } from '../src/http/body-too-large.ts';
import { requireContentType } from '../src/http/content-type.ts';
import type { InboundMetrics } from '../src/metrics/bridge-metrics.ts';
import { countRefusals } from '../src/metrics/refusal-counter.ts';
import type { Inbox } from '../src/store/types.ts';
import { createZoomReceiver } from '../src/zoom/zoom-receiver.ts';

export const ZOOM_EVENTS_PATH = '/recordings/zoom/events';

export interface ZoomRouterDeps {
  config: { ZOOM_WEBHOOK_SECRET_TOKENS: readonly string[]; ZOOM_MAX_BODY: number };
  store: Pick<Inbox, 'ingest'>;
  logger: Logger;
  metrics?: InboundMetrics;
  now?: () => number;
}

/**
 * `POST /recordings/zoom/events` (docs/protocols.md §8): verified on the raw body, then a
 * `recording.completed` is stored with its mapping job before the 200 — well inside Zoom's 3 s;
 * participants are read later by the mapping job, never on this path.
 */
export function zoomRouter(deps: ZoomRouterDeps): Router {
  const router = Router();
  const secrets = deps.config.ZOOM_WEBHOOK_SECRET_TOKENS;
  const receive = secrets.length > 0 ? createZoomReceiver({ secrets, store: deps.store, ...(deps.now ? { now: deps.now } : {}) }) : undefined;

  router.post(
    ZOOM_EVENTS_PATH,
    (_req, _res, next) =>
      next(
        receive === undefined
          ? new AppError('zoom_not_configured', 'Zoom events are not accepted: set ZOOM_WEBHOOK_SECRET_TOKENS', { status: 503 })
          : undefined,
      ),
    requireContentType(['application/json'], 'application/json'),
    express.raw({ type: () => true, limit: deps.config.ZOOM_MAX_BODY }),
    async (req, res) => {
      const body: unknown = req.body;
      if (!Buffer.isBuffer(body) || body.length === 0) throw new AppError('empty_body', 'body is empty; expected a Zoom event', { status: 400 });
      const outcome = await receive!(body, { signature: req.get('x-zm-signature'), timestamp: req.get('x-zm-request-timestamp') });
      switch (outcome.kind) {
        case 'unauthorized':
          throw new AppError('invalid_signature', outcome.reason, { status: 401 });
        case 'invalid':
          throw new AppError('invalid_event', outcome.reason, { status: 400 });
        case 'unstorable': {
          const { path, message } = outcome.problem;
          throw new AppError('invalid_body', `body: ${path} ${message}`, { status: 400, details: { issues: [{ path, code: 'unstorable_text', message }] } });
        }
        case 'validation':
          res.status(200).json(outcome.answer);
          return;
        case 'ignored':
          deps.metrics?.inboundMessage('zoom', 'acked');
          deps.logger.info('zoom event ignored', { event: outcome.event, reason: 'not a recording.completed event' });
          res.status(200).json({ ignored: outcome.event });
          return;
        case 'stored':
          deps.metrics?.inboundMessage('zoom', 'acked');
          deps.metrics?.inboundNotifications('zoom', { acked: outcome.duplicate ? 0 : 1, duplicate: outcome.duplicate ? 1 : 0 });
          deps.logger.info('zoom recording stored', { meetingId: outcome.meetingId, eventId: outcome.eventId, duplicate: outcome.duplicate });
          res.status(200).json({ received: true, duplicate: outcome.duplicate });
      }
    },
  );
  router.all(ZOOM_EVENTS_PATH, (req, res, next) => {
    res.set('Allow', 'POST');
    next(new AppError('method_not_allowed', `${req.method} is not allowed; Zoom POSTs events`, { status: 405 }));
  });
  router.use(ZOOM_EVENTS_PATH, bodyTooLarge(settingLimit('ZOOM_MAX_BODY', deps.config.ZOOM_MAX_BODY)), countRefusals('zoom', deps.metrics));
  return router;
}
