import { classifyAttendee, effectiveInternalDomains } from '../calendar/attendees.ts';
import { type CalendarAttendee, type CalendarEvent, GOOGLE_SOURCE_TYPE } from '../calendar/calendar-event.ts';
import { type GoogleEvent, googleEventSchema } from './google-event.ts';

export type NormaliseResult = { kind: 'event'; event: CalendarEvent } | { kind: 'skipped'; eventId: string; reason: string };

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

/**
 * A Google event from events.list → the stored calendar event, or why it is not a meeting to map
 * (cancelled, all-day and internal-only events are skipped with a reason).
 */
export function normaliseGoogleEvent(raw: unknown, calendarId: string, internalDomains: readonly string[]): NormaliseResult {
  const parsed = googleEventSchema.safeParse(raw);
  if (!parsed.success) {
    const id = (raw as { id?: unknown } | null)?.id;
    return skipped(typeof id === 'string' ? id : '(no id)', 'unreadable event');
  }
  const event = parsed.data;
  // Deleted events come back from an incremental sync with status "cancelled" (docs/protocols.md §3).
  if (event.status === 'cancelled') return skipped(event.id, 'cancelled');
  if (event.start?.dateTime === undefined) {
    return skipped(event.id, event.start?.date !== undefined ? 'all-day event' : 'no start time');
  }
  const attendees = googleAttendees(event);
  const organizerEmail = event.organizer?.email ?? event.creator?.email;
  const internal = effectiveInternalDomains(internalDomains, calendarId, organizerEmail);
  const hasExternal = attendees.some((attendee) => ['external', 'personal'].includes(classifyAttendee(attendee, internal)));
  if (!hasExternal) return skipped(event.id, 'no external attendees');

  return {
    kind: 'event',
    event: {
      version: 1,
      origin: 'google',
      sourceType: GOOGLE_SOURCE_TYPE,
      eventId: event.id,
      calendarId,
      ...(event.summary ? { title: event.summary } : {}),
      ...(event.description ? { description: event.description } : {}),
      ...(event.location ? { location: event.location } : {}),
      start: event.start.dateTime,
      ...(event.end?.dateTime ? { end: event.end.dateTime } : {}),
      ...(organizerEmail ? { organizerEmail } : {}),
      attendees,
      ...(event.extendedProperties ? { extendedProperties: { private: event.extendedProperties.private, shared: event.extendedProperties.shared } } : {}),
      ...(event.updated ? { updated: event.updated } : {}),
    },
  };
}
