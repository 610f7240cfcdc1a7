import { expect } from 'vitest';

import { AppError } from '../../../src/core/errors.ts';
import { parseOutboundMessage } from '../../../src/salesforce/soap-parser.ts';
import { startEngineApp } from '../../support/app-harness.ts';
import { listenOnLoopback } from '../../support/listen-on-loopback.ts';
import { type LogCapture } from '../../support/log-capture.ts';
import { SECRET } from './calendar-deliveries.ts';
import { postRaw } from './raw-post.ts';

/** The in-process targets of the hostile-input scenario and the oracles it checks answers against. */

const PARSE_CODES = new Set(['invalid_xml', 'xml_dtd_refused', 'invalid_soap']);

export interface Target {
  url: string;
  file: string;
  logs: LogCapture;
  close: () => Promise<void>;
}

/** The real app from createApp on its own SQLite file, listening on loopback; rate limits off (one client sends thousands). */
export async function startTarget(orgId: string): Promise<Target> {
  const harness = await startEngineApp('sqlite', {
    env: { SALESFORCE_ORG_IDS: orgId, CALENDAR_WEBHOOK_SECRETS: SECRET, INBOUND_RATE_LIMIT: 'off' },
    logLevel: 'error',
  });
  const server = await listenOnLoopback(harness.app);
  return {
    url: server.url,
    file: harness.file!,
    logs: harness.logs,
    close: async () => {
      await server.close();
      await harness.close();
    },
  };
}

const MAX_BODY = 2 * 1024 * 1024; // SALESFORCE_MAX_BODY's default

/**
 * Posts like Salesforce. A body over the limit may be answered 413 before it is fully sent, and the
 * socket closed under the rest: a reset is then an acceptable refusal, for that body only.
 */
export async function postSoap(url: string, body: Buffer, contentType = 'text/xml; charset=UTF-8') {
  const reply = await postRaw(url, '/salesforce/outbound-message', { 'content-type': contentType, soapaction: '""' }, body);
  if (reply.kind === 'reset') {
    expect(body.length).toBeGreaterThan(MAX_BODY);
    return { status: 413, contentType: 'text/xml; charset=utf-8', text: '<faultcode>soapenv:Client</faultcode> (connection cut)', reset: true };
  }
  return { ...reply, reset: false };
}

/** What the parser does with `xml`: a message, or the 400 refusal it throws; anything else is a bug. */
export function parseOutcome(xml: string): 'parsed' | 'refused' {
  try {
    const message = parseOutboundMessage(xml);
    const values = [message.organizationId, message.actionId, ...message.notifications.flatMap((n) => [n.id, n.sObjectType, ...Object.values(n.fields)])];
    if (!values.every((value) => typeof value === 'string')) throw new Error('parser returned a non-string value');
    if (message.notifications.length < 1 || message.notifications.length > 100) throw new Error('parser returned 0 or more than 100 notifications');
    return 'parsed';
  } catch (error) {
    if (error instanceof AppError && error.status === 400 && PARSE_CODES.has(error.code)) return 'refused';
    throw error;
  }
}
