import { z } from 'zod';

import type { InboundEvent } from '../store/types.ts';

/**
 * Which source record an inbound event is a state of, and that state's version, read from what
 * the receivers store: a Salesforce notification's record `Id` and `SystemModstamp` (else
 * `LastModifiedDate`), or a calendar event's id and `updated`. Salesforce retries out of order and
 * Google pages carry no order, so the version orders a meeting's states (meeting-order.ts).
 */
const salesforceRecord = z.object({ sObjectType: z.string(), fields: z.record(z.string(), z.string()) });
const calendarRecord = z.object({ origin: z.string(), eventId: z.string(), updated: z.string().optional() });

/** A key shared by every state of one source record: their mapping runs one at a time. */
export function sourceRecordKey(event: Pick<InboundEvent, 'source' | 'parsedPayload'>): string | undefined {
  const salesforce = salesforceRecord.safeParse(event.parsedPayload);
  if (salesforce.success) {
    const id = salesforce.data.fields.Id;
    // A 15- and an 18-character id name one record: the first 15 characters are the id.
    return id === undefined ? undefined : `${event.source}:${salesforce.data.sObjectType}:${id.slice(0, 15)}`;
  }
  const calendar = calendarRecord.safeParse(event.parsedPayload);
  return calendar.success ? `${event.source}:${calendar.data.origin}:${calendar.data.eventId}` : undefined;
}

/** The source's own version of this state (epoch ms), when it carries one. */
export function sourceVersionOf(event: Pick<InboundEvent, 'parsedPayload'>): number | undefined {
  const salesforce = salesforceRecord.safeParse(event.parsedPayload);
  const text = salesforce.success
    ? (salesforce.data.fields.SystemModstamp ?? salesforce.data.fields.LastModifiedDate)
    : calendarRecord.safeParse(event.parsedPayload).data?.updated;
  if (text === undefined) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}
