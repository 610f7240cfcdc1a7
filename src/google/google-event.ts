import { z } from 'zod';

/**
 * The fields of a Google Calendar event the bridge reads (docs/protocols.md §3 "Useful event fields").
 * Loose objects: Google adds fields over time and those must not fail a sync.
 */

const stringMap = z.record(z.string(), z.string());

const eventTime = z.looseObject({
  dateTime: z.string().optional(),
  /** Set instead of dateTime on all-day events. */
  date: z.string().optional(),
  timeZone: z.string().optional(),
});

export const googleAttendeeSchema = z.looseObject({
  email: z.string().optional(),
  displayName: z.string().optional(),
  organizer: z.boolean().optional(),
  self: z.boolean().optional(),
  resource: z.boolean().optional(),
  responseStatus: z.string().optional(),
});

export const googleEventSchema = z.looseObject({
  id: z.string().min(1),
  iCalUID: z.string().optional(),
  status: z.string().optional(),
  summary: z.string().optional(),
  description: z.string().optional(),
  location: z.string().optional(),
  start: eventTime.optional(),
  end: eventTime.optional(),
  organizer: z.looseObject({ email: z.string().optional(), self: z.boolean().optional() }).optional(),
  creator: z.looseObject({ email: z.string().optional() }).optional(),
  attendees: z.array(googleAttendeeSchema).optional(),
  hangoutLink: z.string().optional(),
  /** The conference attached to the event (Meet, or an add-on such as Zoom); its `video` entry point is the join link. */
  conferenceData: z
    .looseObject({ entryPoints: z.array(z.looseObject({ entryPointType: z.string().optional(), uri: z.string().optional() })).optional() })
    .optional(),
  extendedProperties: z.looseObject({ private: stringMap.optional(), shared: stringMap.optional() }).optional(),
  recurringEventId: z.string().optional(),
  updated: z.string().optional(),
});

export const eventsPageSchema = z.looseObject({
  items: z.array(z.unknown()).default([]),
  nextPageToken: z.string().optional(),
  /** Only on the last page (docs/protocols.md §3). */
  nextSyncToken: z.string().optional(),
});

export type GoogleEvent = z.infer<typeof googleEventSchema>;
export type EventsPage = z.infer<typeof eventsPageSchema>;
