import { classifyAttendee, effectiveInternalDomains } from '../calendar/attendees.ts';
import type { CalendarAttendee, CalendarEvent } from '../calendar/calendar-event.ts';
import { type GraphEvent, graphEventSchema, isRemoved } from './graph-event.ts';
import { toUtc } from './to-utc.ts';

export type NormaliseResult = { kind: 'event'; event: CalendarEvent } | { kind: 'skipped'; eventId: string; reason: string };

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
 * One item of a calendarView delta page → the stored calendar event, or why it is not a meeting
 * to map: removed, cancelled, all-day and internal-only events are skipped with a reason, as
 * Google's are (docs/protocols.md §7).
 */
export function normaliseGraphEvent(raw: unknown, mailbox: string, internalDomains: readonly string[]): NormaliseResult {
  const rawId = (raw as { id?: unknown } | null)?.id;
  const id = typeof rawId === 'string' ? rawId : '(no id)';
  if (isRemoved(raw)) return skipped(id, 'removed');
  const parsed = graphEventSchema.safeParse(raw);
  if (!parsed.success) return skipped(id, 'unreadable event');
  const event = parsed.data;
  if (event.isCancelled === true) return skipped(event.id, 'cancelled');
  if (event.isAllDay === true) return skipped(event.id, 'all-day event');
  const start = event.start ? toUtc(event.start) : undefined;
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
      start,
      ...(end ? { end } : {}),
      ...(organizerEmail ? { organizerEmail } : {}),
      attendees,
      ...(event.lastModifiedDateTime ? { updated: event.lastModifiedDateTime } : {}),
    },
  };
}
