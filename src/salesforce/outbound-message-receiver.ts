import { mapEventJobsFor } from '../mapping/map-event-job.ts';
import type { InboundEvent, IngestResult, NewJob, Store } from '../store/types.ts';
import type { OutboundMessage, SoapParseErrorCode } from './outbound-message.ts';
import { isSoapParseError, parseOutboundMessage } from './soap-parser.ts';
import { salesforceRecordKey, storedNotifications } from './stored-notification.ts';

export interface OutboundMessageReceiverDeps {
  store: Pick<Store, 'ingest'>;
  /** Allowed org ids (15 or 18 characters); must not be empty. */
  orgIds: readonly string[];
  jobsFor?: (event: InboundEvent) => NewJob[];
}

/** Why a body is not an Outbound Message: no bytes, bytes that are not UTF-8, or the parser's refusal. */
export type InvalidMessageCode = 'empty_body' | 'invalid_encoding' | SoapParseErrorCode;

export type OutboundMessageOutcome =
  /** Every notification is durable (new, or stored by an earlier delivery): the message may be acknowledged. */
  | { kind: 'stored'; message: OutboundMessage; result: IngestResult }
  /** Not an Outbound Message: sending it again unchanged cannot help. */
  | { kind: 'invalid'; code: InvalidMessageCode; reason: string }
  /** A well-formed message from an org the bridge does not serve. */
  | { kind: 'refused'; code: 'org_not_allowed'; organizationId: string; reason: string }
  /** The store failed: not stored means not acknowledged, and Salesforce redelivers later (docs/protocols.md §2). */
  | { kind: 'not_stored'; cause: unknown };

export type ReceiveOutboundMessage = (body: Buffer) => Promise<OutboundMessageOutcome>;

// ignoreBOM keeps a byte-order mark in the text: the XML parser accepts one in front of the
// document and refuses anything else, so two BOMs are not silently cut down to a well-formed one.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The body as text, or why it is not an Outbound Message before any parsing. */
function decode(body: Buffer): string | Extract<OutboundMessageOutcome, { kind: 'invalid' }> {
  if (body.length === 0) return { kind: 'invalid', code: 'empty_body', reason: 'body is empty; expected a SOAP Outbound Message' };
  try {
    return utf8.decode(body);
  } catch {
    return { kind: 'invalid', code: 'invalid_encoding', reason: 'body is not valid UTF-8' };
  }
}

/** The parsed message, or the parser's refusal as an outcome; any other error is a bug and is thrown. */
function parse(xml: string): OutboundMessage | Extract<OutboundMessageOutcome, { kind: 'invalid' }> {
  try {
    return parseOutboundMessage(xml);
  } catch (error) {
    if (isSoapParseError(error)) return { kind: 'invalid', code: error.code, reason: error.message };
    throw error;
  }
}

/** Why a message from this org is refused, or undefined when SALESFORCE_ORG_IDS lists it. */
export function orgRefusal(orgIds: readonly string[]): (organizationId: string) => string | undefined {
  // Salesforce compares org ids on their first 15 characters, case-sensitively (docs/protocols.md §2).
  const allowed = new Set(orgIds.map((id) => id.slice(0, 15)));
  return (organizationId) =>
    allowed.has(organizationId.slice(0, 15)) ? undefined : `OrganizationId ${organizationId} is not allowed: it is not listed in SALESFORCE_ORG_IDS`;
}

/**
 * `POST /salesforce/outbound-message` without the HTTP: decode → parse → check the org → store
 * every notification and its mapping job in one transaction. Each refusal happens before
 * anything is stored; the router answers each outcome in SOAP.
 */
export function outboundMessageReceiver(deps: OutboundMessageReceiverDeps): ReceiveOutboundMessage {
  const refusal = orgRefusal(deps.orgIds);
  const jobsFor = deps.jobsFor ?? mapEventJobsFor(salesforceRecordKey);

  return async (body) => {
    const xml = decode(body);
    if (typeof xml !== 'string') return xml;
    const message = parse(xml);
    if ('kind' in message) return message;
    const { organizationId } = message;
    const reason = refusal(organizationId);
    if (reason !== undefined) return { kind: 'refused', code: 'org_not_allowed', organizationId, reason };
    // Redeliveries carry the same notification Id: de-duplicating on it makes them acked, not re-processed.
    const events = storedNotifications(message).map((parsedPayload) => ({ dedupeKey: `salesforce:${parsedPayload.notificationId}`, parsedPayload }));
    try {
      const result = await deps.store.ingest({ source: 'salesforce', senderId: organizationId, rawPayload: xml, events }, jobsFor);
      return { kind: 'stored', message, result };
    } catch (cause) {
      return { kind: 'not_stored', cause };
    }
  };
}
