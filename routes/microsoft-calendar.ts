import express, { type Request, type Response, Router } from 'express';

import { AppError } from '../src/core/errors.ts';
import type { Logger } from '../src/core/logger.ts';
import { bodyTooLarge, settingLimit } from '../src/http/body-too-large.ts';
import { requireContentType } from '../src/http/content-type.ts';
import { noteRefusedItems } from '../src/http/refusals/refusal-notes.ts';
import type { InboundMetrics } from '../src/metrics/bridge-metrics.ts';
import { countRefusals } from '../src/metrics/refusal-counter.ts';
import { createLifecycleReceiver, createNotificationReceiver, type GraphReceiveOutcome } from '../src/microsoft/notification-receiver.ts';
import { LIFECYCLE_PATH, NOTIFICATIONS_PATH } from '../src/microsoft/subscriptions.ts';
import type { SubscriptionStore } from '../src/store/subscription-store.ts';
import type { JobQueue } from '../src/store/types.ts';

export interface MicrosoftCalendarRouterDeps {
  /** Undefined when Microsoft 365 is not configured: the routes answer 503. */
  subscriptions: Pick<SubscriptionStore, 'getSubscriptions'> | undefined;
  store: Pick<JobQueue, 'enqueue'>;
  logger: Logger;
  /** CALENDAR_MAX_BODY: the largest notification batch read. */
  maxBody: number;
  metrics?: InboundMetrics;
}

// Graph's validation token is opaque text; anything longer than this is not Graph's.
const MAX_VALIDATION_TOKEN = 1024;

/**
 * Graph's validation request (docs/protocols.md §7): `?validationToken=…` must be answered within
 * 10 s with 200 and the decoded token as a plain-text body. It is sent back as text/plain, never
 * HTML, with nosniff (helmet), so a token holding markup stays inert text.
 */
function answerValidation(req: Request, res: Response): boolean {
  const token = req.query.validationToken;
  if (token === undefined) return false;
  if (typeof token !== 'string' || token.length === 0 || token.length > MAX_VALIDATION_TOKEN) {
    throw new AppError('invalid_validation_token', `validationToken must be one value of 1 to ${MAX_VALIDATION_TOKEN} characters`, { status: 400 });
  }
  res.status(200).type('text/plain; charset=utf-8').send(token);
  return true;
}

/**
 * `POST /calendar/microsoft/notifications` and `/lifecycle` (docs/protocols.md §7): answer Graph's
 * validation; otherwise check each item's clientState, store the jobs the good ones ask for and
 * answer 202 at once — the delta sync and lifecycle actions run in the worker, never on this path.
 */
export function microsoftCalendarRouter(deps: MicrosoftCalendarRouterDeps): Router {
  const router = Router();
  const readJson = express.json({ limit: deps.maxBody, type: () => true });
  const requireJson = requireContentType(['application/json'], 'application/json');
  const tooLarge = bodyTooLarge(settingLimit('CALENDAR_MAX_BODY', deps.maxBody));

  for (const [path, kind] of [
    [NOTIFICATIONS_PATH, 'notifications'],
    [LIFECYCLE_PATH, 'lifecycle'],
  ] as const) {
    const receive = deps.subscriptions
      ? (kind === 'notifications' ? createNotificationReceiver : createLifecycleReceiver)({ subscriptions: deps.subscriptions, jobs: deps.store })
      : undefined;
    router.post(
      path,
      (req, res, next) => {
        if (answerValidation(req, res)) return;
        if (receive === undefined) {
          return next(
            new AppError('microsoft_not_configured', 'Microsoft 365 calendars are not configured: set MICROSOFT_TENANT_ID and MICROSOFT_CLIENT_ID', {
              status: 503,
            }),
          );
        }
        next();
      },
      requireJson,
      readJson,
      async (req, res) => {
        const outcome: GraphReceiveOutcome = await receive!(req.body);
        respond(outcome, kind, res, deps);
      },
    );
    router.all(path, (req, _res, next) => {
      _res.set('Allow', 'POST');
      next(new AppError('method_not_allowed', `${req.method} is not allowed; Graph POSTs ${kind}`, { status: 405 }));
    });
    router.use(path, tooLarge, countRefusals('microsoft', deps.metrics));
  }
  return router;
}

function respond(outcome: GraphReceiveOutcome, kind: string, res: Response, deps: MicrosoftCalendarRouterDeps): void {
  switch (outcome.kind) {
    case 'invalid':
      throw new AppError('invalid_notification', outcome.message, { status: 400 });
    case 'refused': {
      countRefused(outcome.refused, deps);
      noteRefusedItems(res, outcome.refused);
      const reasons = Object.entries(outcome.refused)
        .filter(([, count]) => count > 0)
        .map(([reason, count]) => `${count} ${reason}`);
      deps.logger.warn(`microsoft ${kind} refused`, { refused: outcome.refused });
      throw new AppError('notifications_refused', `no item was accepted: ${reasons.join(', ')}`, { status: 403 });
    }
    case 'accepted': {
      countRefused(outcome.refused, deps);
      // Items refused inside an accepted batch (a forged clientState beside good ones) are counted too.
      noteRefusedItems(res, outcome.refused);
      const ignored = outcome.ignored.unknown_lifecycle_event;
      deps.metrics?.inboundMessage('microsoft', 'acked');
      deps.metrics?.inboundNotifications('microsoft', { acked: outcome.items - refusedCount(outcome.refused) - ignored, duplicate: 0 });
      if (ignored > 0) {
        // Acknowledged and counted, nothing else (docs/protocols.md §7): a lifecycle event newer than the bridge.
        deps.metrics?.inboundNotificationsIgnored?.('microsoft', 'unknown_lifecycle_event', ignored);
        deps.logger.warn(`microsoft ${kind}: unknown lifecycle event ignored`, { items: ignored, events: outcome.ignored.events });
      }
      deps.logger.info(`microsoft ${kind} accepted`, { items: outcome.items, jobs: outcome.jobs, refused: outcome.refused, ignored });
      res.status(202).end();
    }
  }
}

const refusedCount = (refused: Record<string, number>) => Object.values(refused).reduce((sum, count) => sum + count, 0);

function countRefused(refused: Record<string, number>, deps: MicrosoftCalendarRouterDeps): void {
  for (const [reason, count] of Object.entries(refused)) if (count > 0) deps.metrics?.inboundNotificationsRefused?.('microsoft', reason, count);
}
