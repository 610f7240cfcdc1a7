import express, { type RequestHandler, Router } from 'express';

import { bodyIssues } from '../src/calendar/body-issues.ts';
import { calendarRecordKey } from '../src/calendar/calendar-event.ts';
import { createGenericReceiver } from '../src/calendar/generic-receiver.ts';
import { webhookHeaders } from '../src/calendar/standard-webhooks.ts';
import type { Config } from '../src/core/config.ts';
import { AppError } from '../src/core/errors.ts';
import type { Logger } from '../src/core/logger.ts';
import { bodyTooLarge, settingLimit } from '../src/http/body-too-large.ts';
import { requireContentType } from '../src/http/content-type.ts';
import { mapEventJobsFor } from '../src/mapping/map-event-job.ts';
import type { InboundMetrics } from '../src/metrics/bridge-metrics.ts';
import { countRefusals } from '../src/metrics/refusal-counter.ts';
import type { InboundEvent, Inbox, NewJob } from '../src/store/types.ts';

export const CALENDAR_EVENTS_PATH = '/calendar/events';

export interface CalendarEventsRouterDeps {
  config: Pick<Config, 'CALENDAR_WEBHOOK_SECRETS' | 'CALENDAR_MAX_BODY'>;
  store: Pick<Inbox, 'ingest'>;
  logger: Logger;
  /** Jobs made for each new event; one `map-event` job by default. */
  jobsFor?: (event: InboundEvent) => NewJob[];
  now?: () => number;
  metrics?: InboundMetrics;
}

/** JSON in UTF-8, checked before the body is read: a signed body in another charset would be read as the wrong text. */
const requireJson = requireContentType(['application/json'], 'application/json');

/**
 * `POST /calendar/events`: one meeting from any calendar, signed with Standard Webhooks (under
 * the `webhook-*` or the `svix-*` header names). 202 once stored; 200 for a webhook-id already
 * stored; 400 (missing or malformed header, bad body: each issue named, unknown fields too), 401,
 * 413 and 415 store nothing.
 */
export function calendarEventsRouter(deps: CalendarEventsRouterDeps): Router {
  const secrets = deps.config.CALENDAR_WEBHOOK_SECRETS;
  const receive = createGenericReceiver({
    secrets,
    store: deps.store,
    jobsFor: deps.jobsFor ?? mapEventJobsFor(calendarRecordKey),
    ...(deps.now ? { now: deps.now } : {}),
  });
  const router = Router();
  const requireConfigured: RequestHandler = (_req, _res, next) =>
    next(
      secrets.length === 0
        ? new AppError('calendar_events_not_configured', 'set CALENDAR_WEBHOOK_SECRETS to accept signed calendar events', { status: 503 })
        : undefined,
    );
  // The signature covers the exact bytes: the body is kept raw, never re-serialised before checking.
  const readRaw = express.raw({ type: () => true, limit: deps.config.CALENDAR_MAX_BODY });

  router.post(CALENDAR_EVENTS_PATH, requireConfigured, requireJson, readRaw, async (req, res) => {
    const headers = webhookHeaders((name) => req.get(name));
    const outcome = await receive({
      webhookId: headers.id,
      webhookTimestamp: headers.timestamp,
      webhookSignature: headers.signature,
      headerPrefix: headers.prefix,
      rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
    });
    switch (outcome.kind) {
      case 'invalid_headers':
        throw new AppError(outcome.reason === 'missing_header' ? 'missing_header' : 'invalid_header', outcome.message, { status: 400 });
      case 'unauthenticated':
        throw new AppError(outcome.reason === 'stale_timestamp' ? 'stale_timestamp' : 'invalid_signature', outcome.message, { status: 401 });
      case 'invalid_json':
        throw new AppError('invalid_json', 'body is not valid UTF-8 JSON', { status: 400 });
      case 'unstorable': {
        const { path, message } = outcome.problem;
        throw new AppError('invalid_body', `body: ${path} ${message}`, { status: 400, details: { issues: [{ path, code: 'unstorable_text', message }] } });
      }
      case 'invalid_body': {
        const issues = bodyIssues(outcome.issues);
        const first = issues[0];
        throw new AppError(
          'invalid_body',
          `body does not match the calendar event schema (version 1)${first ? `: ${first.path || '(body)'}: ${first.message}` : ''}`,
          {
            status: 400,
            details: { issues },
          },
        );
      }
      case 'duplicate':
        deps.metrics?.inboundMessage('calendar', 'acked');
        deps.metrics?.inboundNotifications('calendar', { acked: 0, duplicate: 1 });
        deps.logger.info('calendar event already stored', { webhookId: outcome.webhookId });
        res.status(200).json({ status: 'duplicate', webhookId: outcome.webhookId });
        return;
      case 'stored':
        deps.metrics?.inboundMessage('calendar', 'acked');
        deps.metrics?.inboundNotifications('calendar', { acked: 1, duplicate: 0 });
        deps.logger.info('calendar event stored', { webhookId: outcome.webhookId, eventId: outcome.event.id });
        res.status(202).json({ status: 'accepted', webhookId: outcome.webhookId, eventId: outcome.event.id });
    }
  });
  router.all(CALENDAR_EVENTS_PATH, (req, res, next) => {
    res.set('Allow', 'POST');
    next(new AppError('method_not_allowed', `${req.method} is not allowed; calendar events are POSTed`, { status: 405 }));
  });
  router.use(CALENDAR_EVENTS_PATH, bodyTooLarge(settingLimit('CALENDAR_MAX_BODY', deps.config.CALENDAR_MAX_BODY)), countRefusals('calendar', deps.metrics));
  return router;
}
