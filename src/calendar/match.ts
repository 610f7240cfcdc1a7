import type { RecordKind } from '../mapping/salesforce-ids.ts';
import type { CrmDirectory } from '../matching/directory.ts';
import { matchMeeting, type MeetingToMatch } from '../matching/match-meeting.ts';
import type { MatchAttendee, MatchingRules, MatchRecord, MatchRecords } from '../matching/types.ts';
import { classifyAttendee, effectiveInternalDomains, normaliseEmail } from './attendees.ts';
import type { CalendarEvent } from './calendar-event.ts';
import { explicitIds } from './explicit-ids.ts';
import { findRecordIds, type FoundIds } from './record-links.ts';

/**
 * A calendar event (or a recording seen as one) as matching reads it (docs/calendars.md,
 * matching): ids set on purpose, Salesforce links in the text, and each attendee as external,
 * personal or internal — the organizer and the calendar's owner are the company's own people.
 */

export interface MatchDeps {
  explicitIdKeys: Readonly<Record<RecordKind, string>>;
  /** INTERNAL_EMAIL_DOMAINS. */
  internalDomains: readonly string[];
  /** Absent when no Salesforce credentials are configured: attendee matching is then off. */
  directory?: CrmDirectory;
  matching: MatchingRules;
  rulesVersion?: string;
  /** An operator's pin for this meeting, which wins over every rule. */
  pin?: MeetingToMatch['pin'];
}

/** What matching reads of a meeting: a calendar event, or a recording seen as one. */
export type MatchableMeeting = Pick<
  CalendarEvent,
  'attendees' | 'calendarId' | 'organizerEmail' | 'start' | 'description' | 'location' | 'explicitIds' | 'extendedProperties'
>;

const toRecords = (found: FoundIds): MatchRecords => ({
  ...(found.opportunity ? { opportunityId: found.opportunity } : {}),
  ...(found.account ? { accountId: found.account } : {}),
  ...(found.lead ? { leadId: found.lead } : {}),
});

/** The meeting's attendees for matching, each once, in attendee order; rooms and unreadable addresses left out. */
export function matchAttendees(event: MatchableMeeting, internalDomains: readonly string[]): MatchAttendee[] {
  const domains = effectiveInternalDomains(internalDomains, event.calendarId, event.organizerEmail);
  const seen = new Map<string, MatchAttendee>();
  for (const attendee of event.attendees) {
    const email = normaliseEmail(attendee.email);
    const kind = classifyAttendee(attendee, domains);
    if (email === undefined || kind === 'resource' || seen.has(email)) continue;
    seen.set(email, { email, kind });
  }
  for (const owner of [event.calendarId, event.organizerEmail]) {
    const email = owner ? normaliseEmail(owner) : undefined;
    // The calendar's owner and the organizer are the company's own, whatever their domain.
    if (email !== undefined) seen.set(email, { email, kind: 'internal' });
  }
  return [...seen.values()];
}

/** The match dependencies a mapper has: its rules' explicit id keys and matching section, the directory, and the meeting's pin. */
export function matchDepsOf(
  deps: {
    explicitIdKeys: MatchDeps['explicitIdKeys'];
    internalDomains: readonly string[];
    matching: MatchingRules;
    rulesVersion?: string;
    directory?: CrmDirectory;
  },
  pin: MatchDeps['pin'],
): MatchDeps {
  return {
    explicitIdKeys: deps.explicitIdKeys,
    internalDomains: deps.internalDomains,
    matching: deps.matching,
    ...(deps.rulesVersion === undefined ? {} : { rulesVersion: deps.rulesVersion }),
    ...(deps.directory ? { directory: deps.directory } : {}),
    ...(pin === undefined ? {} : { pin }),
  };
}

export function matchCalendarEvent(event: MatchableMeeting, deps: MatchDeps): Promise<MatchRecord> {
  return matchMeeting(
    {
      attendees: matchAttendees(event, deps.internalDomains),
      startMs: Date.parse(event.start),
      explicit: toRecords(explicitIds(event, deps.explicitIdKeys)),
      linked: toRecords(findRecordIds(event.description, event.location)),
      ...(deps.pin === undefined ? {} : { pin: deps.pin }),
    },
    deps.directory,
    deps.matching,
    deps.rulesVersion,
  );
}
