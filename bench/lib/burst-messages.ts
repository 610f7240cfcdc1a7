import { outboundMessage } from '../../test/salesforce/support/outbound-message-builder.ts';

/**
 * The quota burst's Outbound Messages: update `update` (1…M) of meeting `meeting` (0…K-1), one
 * notification each, and the way back from a remap body to the pair it carries.
 *
 * Every update of a meeting keeps its identity (the Event's Id, Subject and start: one coalescing
 * key) and relinks the Event to another Opportunity, so each update changes what Momentum gets
 * and none is "unchanged, not re-sent". SystemModstamp grows with the update, as Salesforce's does.
 */

const TITLE_PREFIX = 'Quota meeting ';
const START = '2026-03-02T16:00:00.000Z';
const MODSTAMP_BASE = Date.parse('2026-03-01T09:00:00.000Z');

/** 15 characters: a key prefix and a zero-padded number (the parser accepts 15-character ids). */
const id15 = (prefix: string, value: number) => `${prefix}${String(value).padStart(12, '0')}`;

export const burstTitle = (meeting: number): string => `${TITLE_PREFIX}${meeting}`;

/** The Opportunity update `update` links the meeting to (006…: forwarded as salesforceRecords.opportunityId). */
export const opportunityOf = (update: number): string => id15('006', update);

/** `sequence` makes the notification id unique across runs sharing a store. */
export function burstMessage(meeting: number, update: number, sequence: number): string {
  return outboundMessage({
    notifications: [
      {
        id: `${id15('04l', sequence)}AAA`,
        type: 'sf:Event',
        fields: {
          Id: id15('00U', meeting),
          Subject: burstTitle(meeting),
          StartDateTime: START,
          WhatId: opportunityOf(update),
          SystemModstamp: new Date(MODSTAMP_BASE + update * 1000).toISOString(),
        },
      },
    ],
  });
}

/** Which meeting and update a remap body carries; undefined for a body the burst did not cause. */
export function burstStateOf(body: unknown): { meeting: number; update: number } | undefined {
  const remap = body as { meetingDetails?: { title?: unknown }; salesforceRecords?: { opportunityId?: unknown } } | null;
  const title = remap?.meetingDetails?.title;
  const opportunity = remap?.salesforceRecords?.opportunityId;
  if (typeof title !== 'string' || !title.startsWith(TITLE_PREFIX) || typeof opportunity !== 'string') return undefined;
  const meeting = Number(title.slice(TITLE_PREFIX.length));
  // The bridge forwards 18-character ids: the first 15 are the ones sent.
  const update = Number(opportunity.slice(3, 15));
  return Number.isInteger(meeting) && Number.isInteger(update) ? { meeting, update } : undefined;
}
