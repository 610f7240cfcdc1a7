import { type MappingOutcome, skipped } from '../mapping/mapping-outcome.ts';
import type { MappingRules, SObjectRule } from '../mapping/rules-schema.ts';
import { remapCoalesceKey } from '../momentum/remap-coalesce-key.ts';
import { type RemapRequest, remapRequestSchema } from '../momentum/schemas.ts';
import { mapImportRecord } from './sobject-import.ts';
import { extractMeeting, ownerToLookUp } from './sobject-meeting.ts';
import { extractRecords } from './sobject-records.ts';

/** The parts of a stored Salesforce notification the mapping reads (routes/salesforce.ts stores them). */
export interface SObjectNotification {
  notificationId: string;
  sObjectType: string;
  /** Field name → text; null fields are absent; a record deleted before delivery has none. */
  fields: Readonly<Record<string, string>>;
}

export interface SObjectLookups {
  /** 18-character User id → email, for `lookupOwnerEmail`. */
  ownerEmails: ReadonlyMap<string, string>;
  /** INTERNAL_EMAIL_DOMAINS, for imported attendees' isInternal. */
  internalDomains?: readonly string[];
}

export const NO_LOOKUPS: SObjectLookups = { ownerEmails: new Map() };

/** The rule for a type, or the reason the type is not mapped. */
function ruleFor(rules: MappingRules, type: string): SObjectRule | string {
  const rule = Object.hasOwn(rules.sObjects, type) ? rules.sObjects[type] : undefined;
  if (rule === undefined) return `no mapping for sObject type ${type}`;
  if (!rule.enabled) return `mapping for sObject type ${type} is disabled`;
  return rule;
}

/** User ids whose email the mapping of this notification would use (none when it is skipped anyway). */
export function ownerIdsToLookUp(rules: MappingRules, notification: SObjectNotification): string[] {
  const rule = ruleFor(rules, notification.sObjectType);
  if (typeof rule === 'string') return [];
  const owner = ownerToLookUp(rule, notification.fields);
  return owner === undefined ? [] : [owner];
}

// Which rule field fed each request property, so a schema failure names the Salesforce field.
function fieldBehind(rule: SObjectRule, path: readonly PropertyKey[]): string {
  const byPath: Record<string, string | undefined> = {
    'meetingDetails.title': rule.titleField,
    'meetingDetails.startTime': rule.startTimeField,
    'meetingDetails.hostEmail': rule.hostEmailField ?? (rule.lookupOwnerEmail ? "the owner's email" : undefined),
    'source.type': rule.sourceTypeField,
    'source.id': rule.sourceIdField,
  };
  const key = path.map(String).join('.');
  return byPath[key] ?? (key === '' ? 'the request' : key);
}

/**
 * Maps one Salesforce notification to a remap (or, for a type whose rule says `action: import`,
 * an import), or to "skipped: why". Pure: lookups are done by the
 * caller (see ownerIdsToLookUp) and passed in.
 */
export function mapSObject(rules: MappingRules, notification: SObjectNotification, lookups: SObjectLookups = NO_LOOKUPS): MappingOutcome {
  const type = notification.sObjectType;
  const rule = ruleFor(rules, type);
  if (typeof rule === 'string') return skipped(rule);

  const { fields } = notification;
  // docs/protocols.md §2: a record deleted before delivery arrives with no field data.
  if (Object.keys(fields).every((field) => field === 'Id')) {
    return skipped(`${type} has no field data (deleted before delivery, or the Outbound Message sends no fields)`);
  }

  // A recording record is a meeting Momentum never saw: it is imported, not remapped.
  if (rule.action === 'import')
    return mapImportRecord(rule, type, fields, { ownerEmails: lookups.ownerEmails, internalDomains: lookups.internalDomains ?? [] });

  const { records, notes, fieldsRead } = extractRecords(rule, fields);
  if (Object.keys(records).length === 0) {
    const where = fieldsRead.length > 0 ? `in ${fieldsRead.join(', ')}` : `(the mapping for ${type} names no id fields)`;
    return skipped([`no Salesforce opportunity, account or lead id ${where}`, ...notes].join('; '));
  }

  const meeting = extractMeeting(rule, fields, lookups.ownerEmails);
  if (meeting.identity === undefined) return skipped(`no meeting identity for ${type}: ${meeting.reason}`);

  const candidate: RemapRequest = { ...(meeting.identity.source ? { source: meeting.identity.source } : {}), salesforceRecords: records };
  if (meeting.identity.meetingDetails) candidate.meetingDetails = meeting.identity.meetingDetails;
  const checked = remapRequestSchema.safeParse(candidate);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const value = issue === undefined ? undefined : valueAt(candidate, issue.path);
    const shown = value === undefined ? '' : ` ${JSON.stringify(value)}`;
    return skipped(`${fieldBehind(rule, issue?.path ?? [])}${shown} is not usable: ${issue?.message ?? 'invalid remap request'}`);
  }
  // The body goes out exactly as built here; the schema only checks it.
  return {
    kind: 'remap',
    request: candidate,
    flags: { triggerSummary: rule.triggerSummary, triggerAiSignals: rule.triggerAiSignals },
    coalesceKey: remapCoalesceKey(candidate),
  };
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) value = value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}
