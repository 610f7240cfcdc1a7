import type { SObjectRule } from '../mapping/rules-schema.ts';
import { normalizeSalesforceId } from '../mapping/salesforce-ids.ts';
import type { MeetingDetails, RemapSource } from '../momentum/schemas.ts';

export interface MeetingIdentity {
  source?: RemapSource;
  meetingDetails?: MeetingDetails;
}

export interface MeetingResult {
  identity?: MeetingIdentity;
  /** Why there is no identity, for the skip reason. */
  reason?: string;
}

// Salesforce sends numbers as text such as `45000.0` (docs/protocols.md §2).
const WHOLE_NUMBER = /^\d+(?:\.0+)?$/;

const text = (fields: Readonly<Record<string, string>>, field: string | undefined): string | undefined => {
  if (field === undefined) return undefined;
  const value = fields[field]?.trim();
  return value === undefined || value === '' ? undefined : value;
};

/** The 18-character User id in OwnerId when the rule wants the owner's email looked up. */
export function ownerToLookUp(rule: SObjectRule, fields: Readonly<Record<string, string>>): string | undefined {
  if (!rule.lookupOwnerEmail || text(fields, rule.hostEmailField) !== undefined) return undefined;
  const owner = text(fields, 'OwnerId');
  const id = owner === undefined ? undefined : normalizeSalesforceId(owner);
  // OwnerId can also be a queue (00G) or a public calendar (023): only Users (005) have an email.
  return id?.startsWith('005') ? id : undefined;
}

/**
 * Where the meeting identity comes from (docs/protocols.md §1): a Momentum meeting id, an external
 * source {id, type}, and/or meetingDetails. A host email alone identifies no meeting.
 */
export function extractMeeting(rule: SObjectRule, fields: Readonly<Record<string, string>>, ownerEmails: ReadonlyMap<string, string>): MeetingResult {
  const named = [rule.momentumMeetingIdField, rule.sourceIdField, rule.titleField, rule.startTimeField].filter((f) => f !== undefined);
  if (named.length === 0) {
    return { reason: 'the mapping names no meeting fields (momentumMeetingIdField, sourceIdField, titleField or startTimeField)' };
  }

  const problems: string[] = [];
  let momentumMeetingId: number | undefined;
  const rawMeetingId = text(fields, rule.momentumMeetingIdField);
  if (rawMeetingId !== undefined) {
    const value = WHOLE_NUMBER.test(rawMeetingId) ? Number.parseInt(rawMeetingId, 10) : Number.NaN;
    if (Number.isSafeInteger(value)) momentumMeetingId = value;
    else problems.push(`${rule.momentumMeetingIdField} ${JSON.stringify(rawMeetingId)} is not a Momentum meeting id (a whole number)`);
  }

  let source: RemapSource | undefined;
  const sourceId = text(fields, rule.sourceIdField);
  const sourceType = rule.sourceType ?? text(fields, rule.sourceTypeField);
  if (sourceId !== undefined && sourceType !== undefined) source = { id: sourceId, type: sourceType };
  else if (sourceId !== undefined) problems.push(`${rule.sourceTypeField} is empty, so ${rule.sourceIdField} cannot be sent as a source`);

  const title = text(fields, rule.titleField);
  const startTime = text(fields, rule.startTimeField);
  const owner = ownerToLookUp(rule, fields);
  const hostEmail = text(fields, rule.hostEmailField) ?? (owner === undefined ? undefined : ownerEmails.get(owner));

  if (momentumMeetingId === undefined && source === undefined && title === undefined && startTime === undefined) {
    const empty = named.filter((field) => text(fields, field) === undefined);
    return { reason: [`${empty.join(', ')} ${empty.length === 1 ? 'is' : 'are'} empty`, ...problems].join('; ') };
  }

  // With momentumMeetingId "the other fields are not needed" (docs/protocols.md §1): send only the id.
  const details: MeetingDetails =
    momentumMeetingId !== undefined
      ? { momentumMeetingId }
      : { ...(title === undefined ? {} : { title }), ...(startTime === undefined ? {} : { startTime }), ...(hostEmail === undefined ? {} : { hostEmail }) };
  const identity: MeetingIdentity = {};
  if (source !== undefined) identity.source = source;
  if (Object.keys(details).length > 0) identity.meetingDetails = details;
  return { identity };
}
