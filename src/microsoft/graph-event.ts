import { z } from 'zod';

/**
 * The parts of a Graph event and a delta page the bridge reads (docs/protocols.md §7). Loose
 * objects: Graph adds fields over time, and what is not read is not checked.
 */

const emailAddress = z.looseObject({ name: z.string().nullish(), address: z.string().nullish() });
const dateTimeTimeZone = z.looseObject({ dateTime: z.string(), timeZone: z.string().nullish() });

export const graphEventSchema = z.looseObject({
  id: z.string().min(1),
  iCalUId: z.string().nullish(),
  subject: z.string().nullish(),
  bodyPreview: z.string().nullish(),
  body: z.looseObject({ contentType: z.string().nullish(), content: z.string().nullish() }).nullish(),
  start: dateTimeTimeZone.nullish(),
  end: dateTimeTimeZone.nullish(),
  isAllDay: z.boolean().nullish(),
  isCancelled: z.boolean().nullish(),
  organizer: z.looseObject({ emailAddress: emailAddress.nullish() }).nullish(),
  attendees: z.array(z.looseObject({ type: z.string().nullish(), emailAddress: emailAddress.nullish() })).nullish(),
  location: z.looseObject({ displayName: z.string().nullish() }).nullish(),
  onlineMeeting: z.looseObject({ joinUrl: z.string().nullish() }).nullish(),
  lastModifiedDateTime: z.string().nullish(),
});

export type GraphEvent = z.infer<typeof graphEventSchema>;

export const deltaPageSchema = z.looseObject({
  value: z.array(z.unknown()),
  '@odata.nextLink': z.string().optional(),
  '@odata.deltaLink': z.string().optional(),
});

export type DeltaPage = z.infer<typeof deltaPageSchema>;

/** A deleted item in a delta page: `{id, "@removed": {reason}}` (docs/protocols.md §7). */
export const isRemoved = (item: unknown): boolean => typeof item === 'object' && item !== null && '@removed' in item;
