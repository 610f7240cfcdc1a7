import type { RecordKind } from '../mapping/salesforce-ids.ts';
import type { SalesforceRecords } from '../momentum/schemas.ts';
import type { AttendeeDirectory } from './attendee-directory.ts';
import { matchByAttendees } from './attendee-match.ts';
import { effectiveInternalDomains, emailsOfKind, normaliseEmail } from './attendees.ts';
import type { CalendarEvent } from './calendar-event.ts';
import { explicitIds, hasIds } from './explicit-ids.ts';
import { findRecordIds, type FoundIds } from './record-links.ts';

/**
 * Which CRM records a meeting is about, rules in order, the
 * first that yields ids wins: explicit ids, Salesforce links or ids in the text, attendees.
 */

export interface MatchDeps {
  explicitIdKeys: Readonly<Record<RecordKind, string>>;
  /** INTERNAL_EMAIL_DOMAINS. */
  internalDomains: readonly string[];
  /** Absent when no Salesforce credentials are configured: attendee matching is then off. */
  directory?: AttendeeDirectory;
}

export type MatchResult =
  { kind: 'matched'; rule: 'explicit_ids' | 'salesforce_link' | 'attendees'; records: SalesforceRecords } | { kind: 'none'; tried: string[] };

function toRecords(found: FoundIds): SalesforceRecords {
  return {
    ...(found.opportunity ? { opportunityId: found.opportunity } : {}),
    ...(found.account ? { accountId: found.account } : {}),
    ...(found.lead ? { leadId: found.lead } : {}),
  };
}

/** What matching reads of a meeting: a calendar event, or a recording seen as one. */
export type MatchableMeeting = Pick<
  CalendarEvent,
  'attendees' | 'calendarId' | 'organizerEmail' | 'start' | 'description' | 'location' | 'explicitIds' | 'extendedProperties'
>;

export async function matchCalendarEvent(event: MatchableMeeting, deps: MatchDeps): Promise<MatchResult> {
  const tried: string[] = [];
  const explicit = explicitIds(event, deps.explicitIdKeys);
  if (hasIds(explicit)) return { kind: 'matched', rule: 'explicit_ids', records: toRecords(explicit) };
  tried.push(`explicit ids (${Object.values(deps.explicitIdKeys).join(', ')}): none`);

  const linked = findRecordIds(event.description, event.location);
  if (hasIds(linked)) return { kind: 'matched', rule: 'salesforce_link', records: toRecords(linked) };
  tried.push('salesforce links or ids in description and location: none');

  if (deps.directory === undefined) {
    tried.push('attendees: not looked up (no Salesforce credentials configured)');
    return { kind: 'none', tried };
  }
  const internalDomains = effectiveInternalDomains(deps.internalDomains, event.calendarId, event.organizerEmail);
  const owners = [event.calendarId, event.organizerEmail].map((email) => (email ? normaliseEmail(email) : undefined));
  const internalEmails = [
    ...new Set([...emailsOfKind(event.attendees, 'internal', internalDomains), ...owners.filter((email): email is string => email !== undefined)]),
  ];
  const byAttendees = await matchByAttendees(
    { externalEmails: emailsOfKind(event.attendees, 'external', internalDomains), internalEmails, start: event.start },
    deps.directory,
  );
  if (hasIds(byAttendees.found)) return { kind: 'matched', rule: 'attendees', records: toRecords(byAttendees.found) };
  return { kind: 'none', tried: [...tried, ...byAttendees.tried] };
}
