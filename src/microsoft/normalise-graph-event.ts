import { classifyAttendee, effectiveInternalDomains } from '../calendar/attendees.ts';
import type { CalendarAttendee, CalendarCancellation, StoredCalendarEvent } from '../calendar/calendar-event.ts';
import { type GraphEvent, graphEventSchema, isRemoved } from './graph-event.ts';
import { toUtc } from './to-utc.ts';

export type NormaliseResult = { kind: 'event'; event: StoredCalendarEvent } | { kind: 'skipped'; eventId: string; reason: string };

const skipped = (eventId: string, reason: string): NormaliseResult => ({ kind: 'skipped', eventId, reason });

function graphAttendees(event: GraphEvent, organizerEmail: string | undefined): CalendarAttendee[] {
  const attendees: CalendarAttendee[] = [];
  for (const attendee of event.attendees ?? []) {
    const email = attendee.emailAddress?.address;
    if (!email) continue;
    attendees.push({
      email,
      ...(attendee.emailAddress?.name ? { name: attendee.emailAddress.name } : {}),
      ...(organizerEmail !== undefined && email.toLowerCase() === organizerEmail.toLowerCase() ? { organizer: true } : {}),
      // Rooms and equipment are `resource` attendees: never a person, never matched.
      ...(attendee.type === 'resource' ? { resource: true } : {}),
    });
  }
  return attendees;
}

/**
 * A meeting Graph removed from the view or marked cancelled (docs/protocols.md §7), stored so what
 * is pending for it is cancelled. A removed item carries only its id.
 */
const cancellation = (id: string, mailbox: string, fields: Partial<CalendarCancellation> = {}): NormaliseResult => ({
  kind: 'event',
  event: { version: 1, origin: 'microsoft', status: 'cancelled', eventId: id, calendarId: mailbox, ...fields },
});

/**
 * One item of a calendarView delta page → the stored calendar event, its cancellation, or why it
 * is not a meeting to map: all-day and internal-only events are skipped with a reason, as
 * Google's are (docs/protocols.md §7).
 */
export function normaliseGraphEvent(raw: unknown, mailbox: string, internalDomains: readonly string[]): NormaliseResult {
  const rawId = (raw as { id?: unknown } | null)?.id;
  const id = typeof rawId === 'string' ? rawId : '(no id)';
  if (isRemoved(raw)) return typeof rawId === 'string' ? cancellation(rawId, mailbox) : skipped(id, 'unreadable event');
  const parsed = graphEventSchema.safeParse(raw);
  if (!parsed.success) return skipped(id, 'unreadable event');
  const event = parsed.data;
  const start = event.start ? toUtc(event.start) : undefined;
  if (event.isCancelled === true) {
    return cancellation(event.id, mailbox, {
      ...(event.iCalUId ? { iCalUId: event.iCalUId } : {}),
      ...(event.subject ? { title: event.subject } : {}),
      ...(start ? { start } : {}),
      ...(event.lastModifiedDateTime ? { updated: event.lastModifiedDateTime } : {}),
    });
  }
  if (event.isAllDay === true) return skipped(event.id, 'all-day event');
  if (start === undefined) return skipped(event.id, event.start ? 'unreadable start time' : 'no start time');
  const end = event.end ? toUtc(event.end) : undefined;

  const organizerEmail = event.organizer?.emailAddress?.address ?? undefined;
  const attendees = graphAttendees(event, organizerEmail);
  const internal = effectiveInternalDomains(internalDomains, mailbox, organizerEmail);
  const hasExternal = attendees.some((attendee) => ['external', 'personal'].includes(classifyAttendee(attendee, internal)));
  if (!hasExternal) return skipped(event.id, 'no external attendees');

  // Record links may sit in the body (HTML or text) or the location; both are read by the matcher.
  const description = event.body?.content ?? event.bodyPreview ?? undefined;
  const location = [event.location?.displayName, event.onlineMeeting?.joinUrl].filter((part): part is string => !!part).join(' ');
  return {
    kind: 'event',
    event: {
      version: 1,
      origin: 'microsoft',
      eventId: event.id,
      ...(event.iCalUId ? { iCalUId: event.iCalUId } : {}),
      calendarId: mailbox,
      ...(event.subject ? { title: event.subject } : {}),
      ...(description ? { description } : {}),
      ...(location ? { location } : {}),
      ...(event.onlineMeeting?.joinUrl ? { conferenceUrls: [event.onlineMeeting.joinUrl] } : {}),
      start,
      ...(end ? { end } : {}),
      ...(organizerEmail ? { organizerEmail } : {}),
      attendees,
      ...(event.lastModifiedDateTime ? { updated: event.lastModifiedDateTime } : {}),
    },
  };
}
