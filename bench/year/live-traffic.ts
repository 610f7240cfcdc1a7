import { setTimeout as sleep } from 'node:timers/promises';

import { Agent } from 'undici';

import { signStandardWebhook } from '../../src/calendar/standard-webhooks.ts';
import { outboundMessage } from '../../test/salesforce/support/outbound-message-builder.ts';
import { OUTBOUND_HEADERS } from '../lib/outbound-messages.ts';
import { WEBHOOK_SECRET } from './template-run.ts';
import { base62, salesforceId } from './vary.ts';

/**
 * The inbound traffic whose acknowledgement is timed: Salesforce Outbound Messages and signed
 * calendar events, alternately, sent at a steady pace whether or not the previous one has been
 * answered, as senders do (a slow ack does not slow the arrivals, it piles them up). Every id is
 * new to the store (the run's clock is in it), so nothing is answered as a duplicate, and every
 * meeting starts in 2030, where the year holds none, so none joins a stored meeting.
 */

export type Route = 'salesforce' | 'calendar';

export interface AckSample {
  route: Route;
  ms: number;
  /** HTTP status, or 0 when the request failed or timed out. */
  status: number;
}

/** How long Salesforce waits for an acknowledgement: an ack later than this is one the sender never saw. */
const ACK_TIMEOUT_MS = 60_000;
/** One message every 100 ms: 10 a second, far below what the bridge acknowledges when idle. */
export const SEND_EVERY_MS = 100;
const FUTURE = Date.parse('2030-01-07T09:00:00Z');

export function createAckSender(bridgeUrl: string) {
  const agent = new Agent({ connections: 256 });
  const stamp = Date.now();
  let sequence = 0;

  const salesforceBody = (i: number) => {
    const value = stamp * 1000 + i;
    const start = new Date(FUTURE + i * 900_000).toISOString();
    return outboundMessage({
      notifications: [
        {
          id: salesforceId('04l', value, 'Zb').id18,
          type: 'sf:Event',
          fields: {
            Id: salesforceId('00U', value, 'Zb').id18,
            Subject: `Year bench ack ${base62(value, 10)}`,
            StartDateTime: start,
            EndDateTime: new Date(Date.parse(start) + 1_800_000).toISOString(),
            WhatId: salesforceId('006', 1).id18,
            OwnerId: salesforceId('005', 1).id18,
          },
        },
      ],
    });
  };

  const calendarBody = (i: number) => {
    const start = FUTURE + i * 900_000;
    return JSON.stringify({
      version: 1,
      id: `ybench${base62(stamp, 8)}x${i}`,
      sourceType: 'MS_TEAMS',
      title: `Year bench ack ${i}`,
      start: new Date(start).toISOString(),
      end: new Date(start + 1_800_000).toISOString(),
      organizer: { email: 'ana.abe@northwindsales.com' },
      attendees: [{ email: 'ben.berg@acmetech.com' }],
    });
  };

  async function post(route: Route, i: number): Promise<number> {
    const timestamp = Math.floor(Date.now() / 1000);
    const webhookId = `ybench-${stamp}-${i}`;
    const body = route === 'salesforce' ? salesforceBody(i) : calendarBody(i);
    const headers =
      route === 'salesforce'
        ? OUTBOUND_HEADERS
        : {
            'content-type': 'application/json',
            'webhook-id': webhookId,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': signStandardWebhook(WEBHOOK_SECRET, webhookId, timestamp, body),
          };
    const response = await agent.request({
      origin: bridgeUrl,
      path: route === 'salesforce' ? '/salesforce/outbound-message' : '/calendar/events',
      method: 'POST',
      headers,
      body,
      headersTimeout: ACK_TIMEOUT_MS,
      bodyTimeout: ACK_TIMEOUT_MS,
    });
    await response.body.text();
    return response.statusCode;
  }

  /** One ack, timed from send to the whole answer; a refusal or failure is a sample too (status ≠ 200/202). */
  async function ackOnce(): Promise<AckSample> {
    const i = (sequence += 1);
    const route: Route = i % 2 === 0 ? 'salesforce' : 'calendar';
    const started = performance.now();
    const status = await post(route, i).catch(() => 0);
    return { route, ms: performance.now() - started, status };
  }

  /** Sends one message every SEND_EVERY_MS while `more(sent)` holds, then waits for every answer. */
  async function paced(more: (sent: number) => boolean): Promise<AckSample[]> {
    const pending: Array<Promise<AckSample>> = [];
    const started = performance.now();
    while (more(pending.length)) {
      pending.push(ackOnce());
      const next = started + pending.length * SEND_EVERY_MS;
      await sleep(Math.max(0, next - performance.now()));
    }
    return Promise.all(pending);
  }

  return {
    count: (count: number) => paced((sent) => sent < count),
    /** Until `until` (performance.now()). */
    until: (until: number) => paced(() => performance.now() < until),
    /** While `going()` holds. */
    during: (going: () => boolean) => paced(() => going()),
    close: () => agent.close(),
  };
}

export const acked = (sample: AckSample): boolean => sample.status === 200 || sample.status === 202;
