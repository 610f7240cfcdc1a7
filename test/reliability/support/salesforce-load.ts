import { type NotificationSpec, outboundMessage } from '../../salesforce/support/outbound-message-builder.ts';

/**
 * Outbound Messages for load scenarios: every notification is a distinct Event (its own Id and
 * Subject), so no two remaps coalesce and each remap at the fake names the notification it came from.
 */

const OPPORTUNITY_ID = '0068d0000101XyZAAU';
const TITLE_PREFIX = 'Reliability meeting ';

export interface LoadMessage {
  index: number;
  notificationIds: string[];
  xml: string;
}

/** An 18-character notification id, distinct for n in 0–9 999 999. */
export const loadNotificationId = (n: number) => `04l8d${String(n).padStart(7, '0')}XyZAAU`;

const eventNotification = (n: number, id: string): NotificationSpec => ({
  id,
  type: 'sf:Event',
  fields: {
    Id: `00U8d${String(n).padStart(7, '0')}XyZEAU`,
    Subject: `${TITLE_PREFIX}${id}`,
    StartDateTime: '2026-03-02T16:00:00.000Z',
    WhatId: OPPORTUNITY_ID,
  },
});

/** `messages` messages of `perMessage` notifications; `offset` keeps ids of several loads apart. */
export function buildLoad(messages: number, perMessage: number, offset = 0): LoadMessage[] {
  return Array.from({ length: messages }, (_, index) => {
    const ids = Array.from({ length: perMessage }, (_, k) => loadNotificationId(offset + index * perMessage + k));
    return { index, notificationIds: ids, xml: outboundMessage({ notifications: ids.map((id, k) => eventNotification(offset + index * perMessage + k, id)) }) };
  });
}

/** The notification a remap body was made from (its meetingDetails.title), or undefined for anything else. */
export function notificationOfRemap(body: unknown): string | undefined {
  const title = (body as { meetingDetails?: { title?: unknown } } | null)?.meetingDetails?.title;
  return typeof title === 'string' && title.startsWith(TITLE_PREFIX) ? title.slice(TITLE_PREFIX.length) : undefined;
}

export type PostOutcome =
  /** 200 with the SOAP Ack: Salesforce will not send this message again. */
  | { kind: 'acked' }
  /** An answer that is not an ack (a SOAP fault with its status): Salesforce redelivers. */
  | { kind: 'refused'; status: number }
  /** No answer: connection refused or cut (the process died). */
  | { kind: 'failed'; error: string }
  /** Never posted (the load stopped first). */
  | { kind: 'not_sent' };

// Salesforce waits 60 s for the listener (protocols.md §2); a hung bridge must fail the post, not the whole suite.
const POST_TIMEOUT_MS = 30_000;

/** Posts one message like Salesforce does and classifies the answer. */
export async function postMessage(url: string, xml: string): Promise<PostOutcome> {
  try {
    const response = await fetch(`${url}/salesforce/outbound-message`, {
      method: 'POST',
      headers: { 'content-type': 'text/xml; charset=UTF-8', soapaction: '""' },
      body: xml,
      signal: AbortSignal.timeout(POST_TIMEOUT_MS),
    });
    const text = await response.text();
    if (response.status === 200 && text.includes('<Ack>true</Ack>')) return { kind: 'acked' };
    return { kind: 'refused', status: response.status };
  } catch (error) {
    const { name, cause } = error as { name?: string; cause?: { code?: string; message?: string } };
    return { kind: 'failed', error: name === 'TimeoutError' ? 'timeout' : (cause?.code ?? cause?.message ?? String(error)) };
  }
}

export interface LoadOptions {
  /** Messages in flight at once (Salesforce sends several at a time). */
  concurrency: number;
  /** Checked before each post: true stops the load (the rest stay `not_sent`). */
  stop?: () => boolean;
  /** Awaited before each post: lets a scenario hold part of the load back until something happened. */
  beforePost?: (message: LoadMessage) => Promise<void>;
  onOutcome?: (message: LoadMessage, outcome: PostOutcome) => void;
}

/** Posts every message with bounded concurrency; outcomes are in the order of `messages`. */
export async function postLoad(url: string, messages: readonly LoadMessage[], options: LoadOptions): Promise<PostOutcome[]> {
  const outcomes: PostOutcome[] = messages.map(() => ({ kind: 'not_sent' }));
  let next = 0;
  const lane = async () => {
    while (next < messages.length && !options.stop?.()) {
      const position = next++;
      const message = messages[position] as LoadMessage;
      await options.beforePost?.(message);
      if (options.stop?.()) return;
      const outcome = await postMessage(url, message.xml);
      outcomes[position] = outcome;
      options.onOutcome?.(message, outcome);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, lane));
  return outcomes;
}

/** Counts outcomes by kind, for the summary line. */
export function countOutcomes(outcomes: readonly PostOutcome[]): Record<PostOutcome['kind'], number> {
  const counts = { acked: 0, refused: 0, failed: 0, not_sent: 0 };
  for (const outcome of outcomes) counts[outcome.kind] += 1;
  return counts;
}
