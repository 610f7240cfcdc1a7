import type { StoredCalendarEvent } from './calendar-event.ts';
import type { GenericCalendarEvent, GenericRecording } from './generic-event-schema.ts';
import type { RecordingEvent } from './recording-event.ts';

/** The signed generic body → the stored calendar event, or its cancellation (`status: cancelled`). */
export function normaliseGenericEvent(body: GenericCalendarEvent): StoredCalendarEvent {
  const uid = body.iCalUId === undefined ? {} : { iCalUId: body.iCalUId };
  if (body.status === 'cancelled') {
    return {
      version: 1,
      origin: 'calendar',
      status: 'cancelled',
      eventId: body.id,
      ...uid,
      ...(body.title ? { title: body.title } : {}),
      start: body.start,
      ...(body.updated ? { updated: body.updated } : {}),
    };
  }
  const organizer = body.attendees.some((attendee) => attendee.email.toLowerCase() === body.organizer.email.toLowerCase())
    ? []
    : [{ email: body.organizer.email, ...(body.organizer.name ? { name: body.organizer.name } : {}), organizer: true }];
  return {
    version: 1,
    origin: 'calendar',
    sourceType: body.sourceType,
    eventId: body.id,
    ...uid,
    ...(body.joinUrl ? { conferenceUrls: [body.joinUrl] } : {}),
    ...(body.title ? { title: body.title } : {}),
    ...(body.description ? { description: body.description } : {}),
    ...(body.location ? { location: body.location } : {}),
    start: body.start,
    end: body.end,
    organizerEmail: body.organizer.email,
    attendees: [...organizer, ...body.attendees.map((attendee) => ({ email: attendee.email, ...(attendee.name ? { name: attendee.name } : {}) }))],
    ...(body.salesforce && Object.values(body.salesforce).some((id) => id !== undefined) ? { explicitIds: stripUndefined(body.salesforce) } : {}),
    ...(body.updated ? { updated: body.updated } : {}),
  };
}

function stripUndefined<T extends Record<string, string | undefined>>(record: T): Partial<Record<keyof T, string>> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as Partial<Record<keyof T, string>>;
}

/** The signed recording body → the stored recording. */
export function normaliseGenericRecording(body: GenericRecording): RecordingEvent {
  return {
    version: 1,
    origin: 'signed',
    meetingId: body.id,
    ...(body.title ? { title: body.title } : {}),
    ...(body.start ? { start: body.start } : {}),
    ...(body.end ? { end: body.end } : {}),
    ...(body.host ? { host: { email: body.host.email, ...(body.host.name ? { name: body.host.name } : {}) } } : {}),
    recordingUrl: body.recordingUrl,
    ...(body.callUrl ? { callUrl: body.callUrl } : {}),
    attendees: body.attendees.map((attendee) => ({ email: attendee.email, ...(attendee.name ? { name: attendee.name } : {}) })),
    ...(body.salesforce && Object.values(body.salesforce).some((id) => id !== undefined) ? { explicitIds: stripUndefined(body.salesforce) } : {}),
  };
}
