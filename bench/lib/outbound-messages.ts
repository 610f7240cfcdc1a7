import type { Agent } from 'undici';

import { OUTBOUND_MESSAGE_PATH } from '../../routes/salesforce.ts';
import { outboundMessage } from '../../test/salesforce/support/outbound-message-builder.ts';

/**
 * Outbound Message bodies with fresh notification ids on every call, so the bridge's dedupe never
 * short-circuits a request. The XML is built once by the test builder (the shape of the captures in
 * test/fixtures/salesforce/) with placeholders; each call only splices ids in, so the load
 * generator spends its time sending, not building XML.
 */

const NOTIFICATION_ID = '__NID__';
const RECORD_ID = '__RID__';
const PLACEHOLDER = /(__NID__|__RID__)/;

export interface GeneratedMessage {
  xml: string;
  /** The Event record ids of the notifications, in order; each Subject is `subjectOf(recordId)`. */
  recordIds: string[];
}

export const subjectOf = (recordId: string): string => `Bench meeting ${recordId}`;

/** `prefix` + a base-36 counter + `AAA`: an 18-character id the parser accepts, distinct per call. */
const idFrom = (prefix: string, sequence: number) => `${prefix}${sequence.toString(36).padStart(12, '0')}AAA`;

export function createMessageFactory(notificationsPerMessage: number, firstSequence = 1): () => GeneratedMessage {
  const template = outboundMessage({
    notifications: Array.from({ length: notificationsPerMessage }, () => ({
      id: NOTIFICATION_ID,
      type: 'sf:Event',
      fields: {
        Id: RECORD_ID,
        Subject: subjectOf(RECORD_ID),
        StartDateTime: '2026-03-02T16:00:00.000Z',
        EndDateTime: '2026-03-02T16:30:00.000Z',
        // An Opportunity (key prefix 006): the mapping turns it into salesforceRecords.opportunityId.
        WhatId: '0068d00000AbCdE',
        OwnerId: '0058d000001AbCd',
      },
    })),
  });
  const parts = template.split(PLACEHOLDER);
  let sequence = firstSequence;

  return () => {
    const recordIds: string[] = [];
    let notificationId = '';
    let recordId = '';
    const xml = parts
      .map((part) => {
        if (part === NOTIFICATION_ID) {
          notificationId = idFrom('04l', sequence);
          recordId = idFrom('00U', sequence);
          recordIds.push(recordId);
          sequence += 1;
          return notificationId;
        }
        return part === RECORD_ID ? recordId : part;
      })
      .join('');
    return { xml, recordIds };
  };
}

/** The headers Salesforce sends an Outbound Message with. */
export const OUTBOUND_HEADERS = { 'content-type': 'text/xml; charset=utf-8', soapaction: '""' };

/** POSTs one Outbound Message to a bridge and reads the whole reply; throws unless it is acknowledged (200). */
export async function postOutboundMessage(agent: Agent, bridgeUrl: string, xml: string): Promise<void> {
  const response = await agent.request({
    origin: bridgeUrl,
    path: OUTBOUND_MESSAGE_PATH,
    method: 'POST',
    headers: OUTBOUND_HEADERS,
    body: xml,
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  await response.body.text();
  if (response.statusCode !== 200) throw new Error(`bridge answered ${response.statusCode}`);
}
