import { z } from 'zod';

/**
 * One meeting as the bridge stores it (the inbound event's parsedPayload), whichever calendar it
 * came from: Google push + sync (`origin: google`), Microsoft Graph notifications + delta sync
 * (`origin: microsoft`) or the signed generic route (`origin: calendar`).
 * The mapper reads only this, so "reprocess with today's rules" works on what was stored.
 */

const stringMap = z.record(z.string(), z.string());

export const calendarAttendeeSchema = z.object({
  email: z.string(),
  name: z.string().optional(),
  organizer: z.boolean().optional(),
  /** A room or equipment calendar (Google `resource: true`): never a person, never matched. */
  resource: z.boolean().optional(),
});

export const explicitIdsSchema = z.object({
  opportunityId: z.string().optional(),
  accountId: z.string().optional(),
  leadId: z.string().optional(),
});

export const calendarEventSchema = z.object({
  version: z.literal(1),
  origin: z.enum(['google', 'calendar', 'microsoft']),
  /**
   * Momentum's source.type: GOOGLE_CALENDAR for Google, the declared type on the generic route.
   * Absent for Microsoft: whether its remaps name a source is the mapping rules' choice at
   * mapping time (calendar.microsoftSourceType).
   */
  sourceType: z.string().optional(),
  /** A meeting that takes place; its cancellation is stored as calendarCancellationSchema. */
  status: z.literal('confirmed').optional(),
  eventId: z.string(),
  /** The iCalendar UID (Google `iCalUID`, Microsoft `iCalUId`): the meeting's id across calendars. */
  iCalUId: z.string().optional(),
  /**
   * An instance of a recurring series whose iCalendar UID is the series' (Google's instances share
   * one, docs/protocols.md §3): the UID then names no single meeting.
   */
  recurringInstance: z.boolean().optional(),
  /** Join links the calendar gives as such (Google `hangoutLink` and conference entry points, Graph `onlineMeeting.joinUrl`, a signed `joinUrl`). */
  conferenceUrls: z.array(z.string()).optional(),
  /** The watched calendar (Google) or mailbox (Microsoft) — its owner is an internal user. */
  calendarId: z.string().optional(),
  title: z.string().optional(),
  description: z.string().optional(),
  location: z.string().optional(),
  start: z.string(),
  end: z.string().optional(),
  organizerEmail: z.string().optional(),
  attendees: z.array(calendarAttendeeSchema),
  /** Google extendedProperties, read with the mapping rules' explicitIdKeys at mapping time. */
  extendedProperties: z.object({ private: stringMap.optional(), shared: stringMap.optional() }).optional(),
  /** Ids the generic body named explicitly (already 18 characters). */
  explicitIds: explicitIdsSchema.optional(),
  updated: z.string().optional(),
});

/**
 * A meeting its calendar cancelled or deleted (Google `status: cancelled`, a Graph `@removed` item
 * or `isCancelled`, a signed body with `status: cancelled`): mapped to nothing, and what is pending
 * for its meeting is cancelled. A deleted item carries little besides its id.
 */
export const calendarCancellationSchema = z.object({
  version: z.literal(1),
  origin: calendarEventSchema.shape.origin,
  status: z.literal('cancelled'),
  eventId: z.string(),
  iCalUId: z.string().optional(),
  recurringInstance: z.boolean().optional(),
  calendarId: z.string().optional(),
  title: z.string().optional(),
  start: z.string().optional(),
  updated: z.string().optional(),
});

/** What a calendar event's inbound event stores: a meeting, or its cancellation. */
export const storedCalendarSchema = z.union([calendarCancellationSchema, calendarEventSchema]);

export type CalendarAttendee = z.infer<typeof calendarAttendeeSchema>;
export type CalendarEvent = z.infer<typeof calendarEventSchema>;
export type CalendarCancellation = z.infer<typeof calendarCancellationSchema>;
export type StoredCalendarEvent = z.infer<typeof storedCalendarSchema>;
export type ExplicitIds = z.infer<typeof explicitIdsSchema>;

export const GOOGLE_SOURCE_TYPE = 'GOOGLE_CALENDAR';

/** The meeting a stored calendar event is a state of: its origin and the calendar's own event id. */
export function calendarRecordKey(parsedPayload: unknown): string | undefined {
  const parsed = storedCalendarSchema.safeParse(parsedPayload);
  return parsed.success ? `${parsed.data.origin}:${parsed.data.eventId}` : undefined;
}

/** The calendar's own version of this state (epoch ms, its `updated`): pages carry no order (docs/protocols.md §3). */
export function calendarVersion(event: Pick<StoredCalendarEvent, 'updated'>): number | undefined {
  const ms = event.updated === undefined ? NaN : Date.parse(event.updated);
  return Number.isNaN(ms) ? undefined : ms;
}
