import { AppError } from '../core/errors.ts';

/** Namespaces of a Salesforce Outbound Message (docs/protocols.md §2); elements are matched on these, never on prefixes. */
export const SOAP_ENVELOPE_NS = 'http://schemas.xmlsoap.org/soap/envelope/';
export const OUTBOUND_NS = 'http://soap.sforce.com/2005/09/outbound';
export const SOBJECT_NS = 'urn:sobject.enterprise.soap.sforce.com';
export const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance';

/** Salesforce allows 1 to 100 notifications per message (docs/protocols.md §2). */
export const MAX_NOTIFICATIONS = 100;

export interface OutboundNotification {
  /** The notification Id: Salesforce's key for de-duplicating redeliveries. */
  id: string;
  /** The sObject type from `xsi:type`, prefix resolved: `sf:Event` → `Event`. */
  sObjectType: string;
  /** Field name → text exactly as sent; null fields are absent; a deleted record has none. */
  fields: Record<string, string>;
}

export interface OutboundMessage {
  organizationId: string;
  actionId: string;
  enterpriseUrl?: string;
  partnerUrl?: string;
  notifications: OutboundNotification[];
}

/** Codes of the parse errors; every one answers 400 with a SOAP fault. */
export type SoapParseErrorCode = 'invalid_xml' | 'xml_dtd_refused' | 'invalid_soap';

export function soapParseError(code: SoapParseErrorCode, message: string): AppError {
  return new AppError(code, message, { status: 400 });
}

export function isSoapParseError(error: unknown): error is AppError & { code: SoapParseErrorCode } {
  return error instanceof AppError && (error.code === 'invalid_xml' || error.code === 'xml_dtd_refused' || error.code === 'invalid_soap');
}

// Record ids are 15 case-sensitive characters or 18 with the checksum suffix (docs/protocols.md §2).
const RECORD_ID = /^[0-9A-Za-z]{15}(?:[0-9A-Za-z]{3})?$/;
// An sObject API name: standard (`Event`) or custom (`Foo__c`, `ns__Foo__c`). Salesforce caps a
// name at 40 characters, 60 with a namespace prefix and suffix; 80 leaves room and bounds it.
const SOBJECT_TYPE = /^[A-Za-z][A-Za-z0-9_]{0,79}$/;

/** Shows a sender's value inside an error message without letting it run on. */
export function quote(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}

/** What the parser collected for one Notification, before it is checked. */
export interface RawNotification {
  index: number;
  id?: string;
  hasSObject: boolean;
  /** The `xsi:type` value resolved to its local name, when present. */
  sObjectType?: string;
  rawType?: string;
  fields: Map<string, string>;
}

export function checkNotification(raw: RawNotification, seenIds: Map<string, number>): OutboundNotification {
  const where = `Notification ${raw.index}`;
  if (raw.id === undefined || raw.id === '') throw soapParseError('invalid_soap', `${where} has no Id`);
  if (!RECORD_ID.test(raw.id)) throw soapParseError('invalid_soap', `${where} Id ${quote(raw.id)} is not a 15- or 18-character Salesforce id`);
  const earlier = seenIds.get(raw.id);
  if (earlier !== undefined) throw soapParseError('invalid_soap', `${where} repeats the Id ${raw.id} of Notification ${earlier}`);
  seenIds.set(raw.id, raw.index);
  if (!raw.hasSObject) throw soapParseError('invalid_soap', `${where} has no sObject`);
  if (raw.rawType === undefined) throw soapParseError('invalid_soap', `${where} sObject has no xsi:type`);
  if (raw.sObjectType === undefined || !SOBJECT_TYPE.test(raw.sObjectType)) {
    throw soapParseError('invalid_soap', `${where} sObject xsi:type ${quote(raw.rawType)} is not an sObject type name`);
  }
  // fromEntries defines own properties, so a field named like an Object.prototype member stays plain data.
  return { id: raw.id, sObjectType: raw.sObjectType, fields: Object.fromEntries(raw.fields) };
}

export interface RawMessage {
  sawBody: boolean;
  sawNotifications: boolean;
  header: Map<string, string>;
  notificationCount: number;
}

/** Checks what only the whole message can tell: it must name its org and carry 1 to 100 notifications. */
export function checkMessage(raw: RawMessage, notifications: OutboundNotification[]): OutboundMessage {
  if (!raw.sawBody) throw soapParseError('invalid_soap', 'SOAP Envelope has no Body');
  if (!raw.sawNotifications) throw soapParseError('invalid_soap', `SOAP Body has no notifications element in namespace ${OUTBOUND_NS}`);
  const organizationId = raw.header.get('OrganizationId')?.trim();
  if (!organizationId) throw soapParseError('invalid_soap', 'message has no OrganizationId');
  if (!RECORD_ID.test(organizationId)) {
    throw soapParseError('invalid_soap', `OrganizationId ${quote(organizationId)} is not a 15- or 18-character Salesforce id`);
  }
  const actionId = raw.header.get('ActionId')?.trim();
  if (!actionId) throw soapParseError('invalid_soap', 'message has no ActionId');
  // The ActionId is the workflow action's record id; it is stored with every notification and
  // logged on the request line, so like every id it must be one, and nothing longer.
  if (!RECORD_ID.test(actionId)) throw soapParseError('invalid_soap', `ActionId ${quote(actionId)} is not a 15- or 18-character Salesforce id`);
  if (raw.notificationCount === 0) throw soapParseError('invalid_soap', 'message has no Notification; expected 1 to 100');
  if (raw.notificationCount > MAX_NOTIFICATIONS) {
    throw soapParseError('invalid_soap', `message has ${raw.notificationCount} notifications; at most ${MAX_NOTIFICATIONS} allowed`);
  }
  const enterpriseUrl = raw.header.get('EnterpriseUrl')?.trim();
  const partnerUrl = raw.header.get('PartnerUrl')?.trim();
  return {
    organizationId,
    actionId,
    ...(enterpriseUrl ? { enterpriseUrl } : {}),
    ...(partnerUrl ? { partnerUrl } : {}),
    notifications,
  };
}
