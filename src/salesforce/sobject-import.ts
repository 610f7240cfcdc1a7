import { isInternalEmail, normaliseEmail } from '../calendar/attendees.ts';
import { describeIssues } from '../core/describe-issues.ts';
import { quoted } from '../core/excerpt.ts';
import { isHttpUrl } from '../core/http-url.ts';
import { type MappingOutcome, skipped } from '../mapping/mapping-outcome.ts';
import type { SObjectRule } from '../mapping/rules-schema.ts';
import { normalizeSalesforceId } from '../mapping/salesforce-ids.ts';
import { type ImportMeeting, type ImportRequest, importRequestSchema } from '../momentum/schemas.ts';
import { ownerToLookUp } from './sobject-meeting.ts';
import { extractRecords } from './sobject-records.ts';

export interface ImportContext {
  /** 18-character User id → email, for `lookupOwnerEmail`. */
  ownerEmails: ReadonlyMap<string, string>;
  /** INTERNAL_EMAIL_DOMAINS: attendees of these domains (and the host's) are internal. */
  internalDomains: readonly string[];
}

const text = (fields: Readonly<Record<string, string>>, field: string | undefined): string | undefined => {
  const value = field === undefined ? undefined : fields[field]?.trim();
  return value === undefined || value === '' ? undefined : value;
};

/** A date-time field as an instant; undefined when absent, an error text when it is not one. */
function instant(fields: Readonly<Record<string, string>>, field: string | undefined): string | undefined | { problem: string } {
  const value = text(fields, field);
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) || !value.includes('T') ? { problem: `${field} ${JSON.stringify(value)} is not a date-time` } : new Date(ms).toISOString();
}

/**
 * A recording record (a dialer's call log, a recorder's conversation object) → an import of the
 * meeting it recorded: its id in the recording system, title, times, host, links, attendees and
 * the CRM ids it carries. Pure: the owner's email is looked up by the caller.
 */
export function mapImportRecord(rule: SObjectRule, type: string, fields: Readonly<Record<string, string>>, context: ImportContext): MappingOutcome {
  const meetingId = text(fields, rule.meetingIdField);
  if (meetingId === undefined) return skipped(`${rule.meetingIdField} is empty: a recording without its meeting id cannot be imported`);

  const start = instant(fields, rule.startTimeField);
  const end = instant(fields, rule.endTimeField);
  for (const value of [start, end]) if (typeof value === 'object') return skipped(value.problem);
  let endTime = end as string | undefined;
  const duration = text(fields, rule.durationSecondsField);
  if (duration !== undefined && typeof start === 'string') {
    const seconds = Number(duration);
    const ends = new Date(Date.parse(start) + Math.round(seconds * 1000));
    // A duration no date can hold ("1e13") is as unusable as a negative one: skipped with why, never an exception.
    if (!Number.isFinite(seconds) || seconds < 0 || Number.isNaN(ends.getTime()))
      return skipped(`${rule.durationSecondsField} ${JSON.stringify(duration)} is not a number of seconds`);
    endTime = ends.toISOString();
  }

  const owner = ownerToLookUp(rule, fields);
  const hostEmail = text(fields, rule.hostEmailField) ?? (owner === undefined ? undefined : context.ownerEmails.get(owner));
  const hostName = text(fields, rule.hostNameField);
  const emails = rule.attendeeEmailFields.flatMap((field) => (text(fields, field) ?? '').split(/[,;]/)).map((email) => normaliseEmail(email));
  const attendees = [...new Set(emails.filter((email): email is string => email !== undefined))].map((email) => ({
    email,
    isInternal: isInternalEmail(email, context.internalDomains, hostEmail),
  }));

  const { records } = extractRecords(rule, fields);
  const account = records.accountId ?? idIn(fields, rule.accountIdField);
  const opportunity = records.opportunityId ?? idIn(fields, rule.opportunityIdField);
  const recordingUrl = text(fields, rule.recordingUrlField);
  const callUrl = text(fields, rule.callUrlField);
  // Skipped, not sent without the link: an import goes once per meeting, so one sent now would keep
  // the meeting from being imported with its link once the record is corrected.
  for (const [field, value] of [
    [rule.recordingUrlField, recordingUrl],
    [rule.callUrlField, callUrl],
  ] as const)
    if (value !== undefined && !isHttpUrl(value))
      return skipped(`${field} ${quoted(value)} is not an absolute http or https URL: the recording is not imported`);

  const meeting: ImportMeeting = {
    id: meetingId,
    ...(text(fields, rule.titleField) === undefined ? {} : { title: text(fields, rule.titleField) }),
    ...(typeof start === 'string' ? { startTime: start } : {}),
    ...(endTime === undefined ? {} : { endTime }),
    ...(hostEmail || hostName ? { host: { ...(hostEmail ? { email: hostEmail } : {}), ...(hostName ? { name: hostName } : {}) } } : {}),
    ...(recordingUrl === undefined ? {} : { recordingUrl }),
    ...(callUrl === undefined ? {} : { callUrl }),
    ...(attendees.length > 0 ? { attendees } : {}),
    ...(account === undefined ? {} : { salesforceAccountId: account }),
    ...(opportunity === undefined ? {} : { salesforceOpportunityId: opportunity }),
  };
  const request: ImportRequest = { meeting, processImportedMeeting: rule.processImportedMeeting };
  const checked = importRequestSchema.safeParse(request);
  if (!checked.success) return skipped(`${type} ${meetingId} makes an invalid import: ${describeIssues(checked.error)}`);
  return { kind: 'import', request, rule: `sobject:${type}` };
}

function idIn(fields: Readonly<Record<string, string>>, field: string | undefined): string | undefined {
  const value = text(fields, field);
  return value === undefined ? undefined : normalizeSalesforceId(value);
}
