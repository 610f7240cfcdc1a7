import { describe, expect, it } from 'vitest';

import { outboundMessageReceiver } from '../../src/salesforce/outbound-message-receiver.ts';
import type { NewInboundMessage, Store } from '../../src/store/types.ts';
import { eventNotification, notificationId, ORG_ID, outboundMessage } from './support/outbound-message-builder.ts';

/** A store that records what it was asked to ingest, and fails when told to. */
function recordingStore(options: { fail?: Error } = {}) {
  const ingested: NewInboundMessage[] = [];
  const store: Pick<Store, 'ingest'> = {
    ingest: (message) => {
      if (options.fail) return Promise.reject(options.fail);
      ingested.push(message);
      return Promise.resolve({ created: [], duplicates: message.events.map((event) => event.dedupeKey) });
    },
  };
  return { store, ingested };
}

const bytes = (text: string) => Buffer.from(text, 'utf8');
const valid = () => outboundMessage({ notifications: [eventNotification(1), eventNotification(2)] });

describe('outboundMessageReceiver', () => {
  it('when a message of an allowed org arrives, then every notification is stored under its notification Id and the outcome is stored', async () => {
    const { store, ingested } = recordingStore();
    // Configured in its 15-character form: Salesforce compares the first 15 characters.
    const receive = outboundMessageReceiver({ store, orgIds: [ORG_ID.slice(0, 15)] });

    const outcome = await receive(bytes(valid()));

    expect(outcome).toMatchObject({ kind: 'stored', message: { organizationId: ORG_ID }, result: { created: [] } });
    expect(ingested).toHaveLength(1);
    expect(ingested[0]).toMatchObject({ source: 'salesforce', senderId: ORG_ID, rawPayload: valid() });
    expect(ingested[0]?.events.map((event) => event.dedupeKey)).toEqual([`salesforce:${notificationId(1)}`, `salesforce:${notificationId(2)}`]);
  });

  it.each([
    ['an empty body', Buffer.alloc(0), 'empty_body', 'body is empty; expected a SOAP Outbound Message'],
    ['bytes that are not UTF-8', Buffer.from([0x3c, 0xff, 0xfe, 0x3e]), 'invalid_encoding', 'body is not valid UTF-8'],
    ['XML that is not well-formed', bytes('<soapenv:Envelope'), 'invalid_xml', /^XML is not well-formed/],
    ['a DOCTYPE', bytes(`<!DOCTYPE x>${valid().replace(/^<\?xml[^>]*>/, '')}`), 'xml_dtd_refused', /^DOCTYPE declarations are not allowed/],
    [
      'a message without OrganizationId',
      bytes(outboundMessage({ orgId: null, notifications: [eventNotification(1)] })),
      'invalid_soap',
      'message has no OrganizationId',
    ],
  ])('when the body is %s, then the outcome is invalid with its code and reason, and nothing is stored', async (_case, body, code, reason) => {
    const { store, ingested } = recordingStore();

    const outcome = await outboundMessageReceiver({ store, orgIds: [ORG_ID] })(body);

    expect(outcome).toEqual({ kind: 'invalid', code, reason: expect.any(String) });
    expect((outcome as { reason: string }).reason).toMatch(reason);
    expect(ingested).toEqual([]);
  });

  it('when the org is not allowed, then the outcome is refused naming the org, and nothing is stored', async () => {
    const { store, ingested } = recordingStore();

    const outcome = await outboundMessageReceiver({ store, orgIds: ['00D000000000001'] })(bytes(valid()));

    expect(outcome).toEqual({
      kind: 'refused',
      code: 'org_not_allowed',
      organizationId: ORG_ID,
      reason: `OrganizationId ${ORG_ID} is not allowed: it is not listed in SALESFORCE_ORG_IDS`,
    });
    expect(ingested).toEqual([]);
  });

  it('when the store fails, then the outcome is not_stored carrying the cause, not a thrown error', async () => {
    const failure = new Error('disk I/O error');
    const { store } = recordingStore({ fail: failure });

    const outcome = await outboundMessageReceiver({ store, orgIds: [ORG_ID] })(bytes(valid()));

    expect(outcome).toEqual({ kind: 'not_stored', cause: failure });
  });
});
