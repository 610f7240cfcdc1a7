import { classifyAttendee, effectiveInternalDomains } from '../calendar/attendees.ts';
import { type CalendarAttendee, GOOGLE_SOURCE_TYPE, type StoredCalendarEvent } from '../calendar/calendar-event.ts';
import { type GoogleEvent, googleEventSchema } from './google-event.ts';

export type NormaliseResult = { kind: 'event'; event: StoredCalendarEvent } | { kind: 'skipped'; eventId: string; reason: string };

const skipped = (eventId: string, reason: string): NormaliseResult => ({ kind: 'skipped', eventId, reason });

function googleAttendees(event: GoogleEvent): CalendarAttendee[] {
  const attendees: CalendarAttendee[] = [];
  for (const attendee of event.attendees ?? []) {
    if (!attendee.email) continue;
    attendees.push({
      email: attendee.email,
      ...(attendee.displayName ? { name: attendee.displayName } : {}),
      ...(attendee.organizer ? { organizer: true } : {}),
      ...(attendee.resource ? { resource: true } : {}),
    });
  }
  return attendees;
}

/** Join links Google gives as such: the Meet link, and the video entry point of any conference (docs/protocols.md §3). */
function conferenceUrls(event: GoogleEvent): string[] {
  const video = (event.conferenceData?.entryPoints ?? []).filter((entry) => entry.entryPointType === 'video').map((entry) => entry.uri);
  return [...new Set([event.hangoutLink, ...video].filter((uri): uri is string => uri !== undefined && uri !== ''))];
}

/** The iCalendar UID, and whether a series' instances share it (an instance has a recurringEventId). */
const identity = (event: GoogleEvent) => ({
  ...(event.iCalUID ? { iCalUId: event.iCalUID } : {}),
  ...(event.recurringEventId ? { recurringInstance: true } : {}),
});

/**
 * A Google event from events.list → the stored calendar event, its cancellation, or why it is not
 * a meeting to map (all-day and internal-only events are skipped with a reason).
 */
export function normaliseGoogleEvent(raw: unknown, calendarId: string, internalDomains: readonly string[]): NormaliseResult {
  const parsed = googleEventSchema.safeParse(raw);
  if (!parsed.success) {
    const id = (raw as { id?: unknown } | null)?.id;
    return skipped(typeof id === 'string' ? id : '(no id)', 'unreadable event');
  }
  const event = parsed.data;
  // Deleted events come back from an incremental sync with status "cancelled" (docs/protocols.md §3):
  // stored, so what is pending for the meeting is cancelled. Such an item may carry little but its id.
  if (event.status === 'cancelled') {
    const start = event.start?.dateTime;
    return {
      kind: 'event',
      event: {
        version: 1,
        origin: 'google',
        status: 'cancelled',
        eventId: event.id,
        ...identity(event),
        calendarId,
        ...(event.summary ? { title: event.summary } : {}),
        ...(start ? { start } : {}),
        ...(event.updated ? { updated: event.updated } : {}),
      },
    };
  }
  if (event.start?.dateTime === undefined) {
    return skipped(event.id, event.start?.date !== undefined ? 'all-day event' : 'no start time');
  }
  const attendees = googleAttendees(event);
  const organizerEmail = event.organizer?.email ?? event.creator?.email;
  const internal = effectiveInternalDomains(internalDomains, calendarId, organizerEmail);
  const hasExternal = attendees.some((attendee) => ['external', 'personal'].includes(classifyAttendee(attendee, internal)));
  if (!hasExternal) return skipped(event.id, 'no external attendees');
  const links = conferenceUrls(event);

  return {
    kind: 'event',
    event: {
      version: 1,
      origin: 'google',
      sourceType: GOOGLE_SOURCE_TYPE,
      eventId: event.id,
      ...identity(event),
      calendarId,
      ...(event.summary ? { title: event.summary } : {}),
      ...(event.description ? { description: event.description } : {}),
      ...(event.location ? { location: event.location } : {}),
      ...(links.length > 0 ? { conferenceUrls: links } : {}),
      start: event.start.dateTime,
      ...(event.end?.dateTime ? { end: event.end.dateTime } : {}),
      ...(organizerEmail ? { organizerEmail } : {}),
      attendees,
      ...(event.extendedProperties ? { extendedProperties: { private: event.extendedProperties.private, shared: event.extendedProperties.shared } } : {}),
      ...(event.updated ? { updated: event.updated } : {}),
    },
  };
}
