import express, { type ErrorRequestHandler, type RequestHandler, Router } from 'express';

import type { Config } from '../src/core/config.ts';
import { AppError, isConfigurationRefusal, publicError } from '../src/core/errors.ts';
import type { Logger } from '../src/core/logger.ts';
import { bodyTooLarge, settingLimit } from '../src/http/body-too-large.ts';
import { requireContentType } from '../src/http/content-type.ts';
import { noteRefusalCode } from '../src/http/refusals/refusal-notes.ts';
import type { InboundMetrics } from '../src/metrics/bridge-metrics.ts';
import { type OutboundMessageOutcome, outboundMessageReceiver } from '../src/salesforce/outbound-message-receiver.ts';
import { ACK_ENVELOPE, SOAP_CONTENT_TYPE, soapFault } from '../src/salesforce/soap-replies.ts';
import type { InboundEvent, NewJob, Store } from '../src/store/types.ts';

export const OUTBOUND_MESSAGE_PATH = '/salesforce/outbound-message';

export interface SalesforceRouterDeps {
  config: Pick<Config, 'SALESFORCE_ORG_IDS' | 'SALESFORCE_MAX_BODY'>;
  store: Store;
  logger: Logger;
  /** Jobs made for each new notification; one `map-event` job by default. */
  enqueueFor?: (event: InboundEvent) => NewJob[];
  /** Counts each message acked or refused (by code) and its notifications. */
  metrics?: InboundMetrics;
  /** Run first on every request to the path (client allowlist, rate limit); their errors become SOAP faults. */
  guards?: RequestHandler[];
}

// Salesforce posts SOAP 1.1 as text/xml; application/soap+xml is accepted for SOAP 1.2-minded senders.
// Checked before the body is read, so a JSON or form post is refused without reading it.
const requireXml = requireContentType(['text/xml', 'application/soap+xml'], 'text/xml');
// The ack never changes: encoded once, and sent without res.send's per-reply ETag (a SHA-1 of a
// constant body, meaningless on a POST reply). Node adds Content-Length for a body given to end().
const ACK_BODY = Buffer.from(ACK_ENVELOPE, 'utf8');

/** A refusal in the words of the SOAP fault: `invalid` is the sender's mistake, `not_stored` ours (Salesforce retries). */
function refusal(outcome: Exclude<OutboundMessageOutcome, { kind: 'stored' }>): AppError {
  switch (outcome.kind) {
    case 'invalid':
      return new AppError(outcome.code, outcome.reason, { status: 400 });
    case 'refused':
      return new AppError(outcome.code, outcome.reason, { status: 403 });
    case 'not_stored':
      return new AppError('store_unavailable', 'the message could not be stored; it will be accepted on a retry', { status: 500, cause: outcome.cause });
  }
}

/** Answers every error of this router as a SOAP fault: Salesforce understands nothing else. */
function soapFaults(logger: Logger, metrics: InboundMetrics | undefined): ErrorRequestHandler {
  return (error, _req, res, next) => {
    if (res.headersSent) return next(error);
    const reply = publicError(error);
    metrics?.inboundMessage('salesforce', 'refused', reply.code);
    noteRefusalCode(res, reply.code);
    if (isConfigurationRefusal(error))
      logger.warn('salesforce message refused: not configured', { status: reply.status, code: reply.code, reason: reply.message });
    else if (reply.status >= 500) logger.error('salesforce message failed', { error, cause: (error as Error).cause, code: reply.code });
    else logger.warn('salesforce message refused', { status: reply.status, code: reply.code, reason: reply.message });
    res
      .status(reply.status)
      .type(SOAP_CONTENT_TYPE)
      .send(soapFault(reply.status >= 500 ? 'Server' : 'Client', reply.message));
  };
}

/** `POST /salesforce/outbound-message`: verify, store durably, then ack (docs/protocols.md §2). No lookups, no upstream calls. */
export function salesforceRouter(deps: SalesforceRouterDeps): Router {
  const { config, store, logger } = deps;
  const orgIds = config.SALESFORCE_ORG_IDS;
  const receive = outboundMessageReceiver({ store, orgIds, ...(deps.enqueueFor ? { jobsFor: deps.enqueueFor } : {}) });
  const router = Router();
  if (deps.guards && deps.guards.length > 0) router.use(OUTBOUND_MESSAGE_PATH, ...deps.guards);

  const requireConfigured: RequestHandler = (_req, _res, next) =>
    next(
      orgIds.length === 0
        ? new AppError('salesforce_not_configured', 'bridge is not configured for Salesforce: set SALESFORCE_ORG_IDS', { status: 503 })
        : undefined,
    );

  const readBody = express.raw({ type: () => true, limit: config.SALESFORCE_MAX_BODY });

  router.post(OUTBOUND_MESSAGE_PATH, requireConfigured, requireXml, readBody, async (req, res) => {
    const outcome = await receive(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
    if (outcome.kind !== 'stored') throw refusal(outcome);
    const { message, result } = outcome;
    res.locals.logFields = {
      organizationId: message.organizationId,
      actionId: message.actionId,
      notifications: message.notifications.length,
      new: result.created.length,
      duplicates: result.duplicates.length,
    };
    // Only now, with every notification durable, may Salesforce consider the message delivered.
    res.status(200).setHeader('Content-Type', SOAP_CONTENT_TYPE);
    res.end(ACK_BODY);
    deps.metrics?.inboundMessage('salesforce', 'acked');
    deps.metrics?.inboundNotifications('salesforce', { acked: result.created.length, duplicate: result.duplicates.length });
  });

  router.all(OUTBOUND_MESSAGE_PATH, (req, res, next) => {
    res.set('Allow', 'POST');
    next(new AppError('method_not_allowed', `${req.method} is not allowed; Outbound Messages are POSTed`, { status: 405 }));
  });
  router.use(OUTBOUND_MESSAGE_PATH, bodyTooLarge(settingLimit('SALESFORCE_MAX_BODY', config.SALESFORCE_MAX_BODY)), soapFaults(logger, deps.metrics));
  return router;
}
