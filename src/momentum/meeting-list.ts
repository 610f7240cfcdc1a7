import { z } from 'zod';

import { MAX_ATTENDEES } from '../core/attendee-bound.ts';
import { describeIssues } from '../core/describe-issues.ts';
import { storableValue } from '../core/storable.ts';

/**
 * Momentum's meeting listing, `GET /v1/meetings` (docs/protocols.md §1): the query the bridge
 * sends and the answer as it reads it. The answer is barely documented, so it is read leniently:
 * extra fields are dropped (a transcript is never kept), a meeting without an id is left out and
 * counted, an attendee that cannot be read is left out, and every string is made storable.
 */

/** The reference enforces 1 to 50, whatever its prose says (docs/protocols.md §1). */
export const MAX_PAGE_SIZE = 50;

export const listMeetingsQuerySchema = z
  .strictObject({
    /** Meetings starting at or after this instant (epoch ms). */
    from: z.int(),
    /** Meetings ending at or before this instant (epoch ms). */
    to: z.int(),
    pageNumber: z.int().min(1),
    pageSize: z.int().min(1).max(MAX_PAGE_SIZE),
    salesforceAccountId: z
      .string()
      .regex(/^\w{18}$/, 'expected an 18-character Salesforce id')
      .optional(),
    salesforceOpportunityId: z
      .string()
      .regex(/^\w{18}$/, 'expected an 18-character Salesforce id')
      .optional(),
  })
  .refine((query) => query.salesforceAccountId === undefined || query.salesforceOpportunityId === undefined, {
    message: 'Momentum filters by an account or an opportunity, not both',
  });

export type ListMeetingsQuery = z.infer<typeof listMeetingsQuerySchema>;

const optionalText = z
  .string()
  .nullish()
  .transform((value) => (value === null || value === undefined || value.trim() === '' ? undefined : value));

const listedAttendeeSchema = z.object({
  email: optionalText,
  name: optionalText,
  isInternal: z.boolean().nullish(),
  salesforceLeadId: optionalText,
});

const listedMeetingSchema = z.object({
  // An integer in the remap's meetingDetails.momentumMeetingId; kept as text whatever the listing sends.
  // A number past 2^53 was already rounded by JSON parsing: two meetings could read as one, so such a meeting is unreadable.
  id: z.union([z.string().regex(/\S/), z.number().refine(Number.isSafeInteger, 'an id past 2^53 cannot be read exactly')]).transform(String),
  title: optionalText,
  startTime: optionalText,
  endTime: optionalText,
  host: z.object({ email: optionalText, name: optionalText }).nullish(),
  attendees: z.array(z.unknown()).nullish(),
  salesforceAccountId: optionalText,
  salesforceOpportunityId: optionalText,
});

const pageSchema = z.object({
  meetings: z.array(z.unknown()),
  // `null` says as little as a missing count: read as 0 it would end a walk after its first page.
  pageCount: z.preprocess((value) => (value === null ? undefined : value), z.coerce.number().int().min(0).optional()),
});

/**
 * The most pages one walk of the listing reads (50 000 meetings at 50 a page): a Momentum that
 * ignored `pageNumber` and kept answering full pages without a count would otherwise be walked
 * for ever, a call each.
 */
export const MAX_LISTING_PAGES = 1_000;

export interface ListedAttendee {
  email?: string;
  name?: string;
  isInternal?: boolean;
  salesforceLeadId?: string;
}

/** One meeting as Momentum lists it, reduced to what the bridge compares and matches. */
export interface ListedMeeting {
  id: string;
  title?: string;
  startTime?: string;
  endTime?: string;
  host?: { email?: string; name?: string };
  attendees: ListedAttendee[];
  salesforceAccountId?: string;
  salesforceOpportunityId?: string;
}

export interface MeetingPage {
  meetings: ListedMeeting[];
  /** Pages the listing has; when Momentum leaves it out, a full page means there may be another. */
  pageCount: number;
  /** Meetings on the page that could not be read (no id): left out. */
  unreadable: number;
}

const compact = <T extends object>(value: T): T => Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined && item !== null)) as T;

function readMeeting(value: unknown): ListedMeeting | undefined {
  const parsed = listedMeetingSchema.safeParse(value);
  if (!parsed.success) return undefined;
  const { attendees, host, ...rest } = parsed.data;
  // As many as a calendar event keeps (core/attendee-bound.ts): a webinar is not matched attendee by attendee.
  const readable = (attendees ?? []).slice(0, MAX_ATTENDEES).flatMap((attendee) => {
    const one = listedAttendeeSchema.safeParse(attendee);
    return one.success ? [compact({ ...one.data, isInternal: one.data.isInternal ?? undefined })] : [];
  });
  const hostValue = host ? compact(host) : undefined;
  return storableValue(compact({ ...rest, ...(hostValue && Object.keys(hostValue).length > 0 ? { host: hostValue } : {}), attendees: readable }));
}

/** The page as the bridge reads it, or why it cannot be read. */
export function readMeetingPage(body: unknown, query: Pick<ListMeetingsQuery, 'pageNumber' | 'pageSize'>): { page: MeetingPage } | { problem: string } {
  const parsed = pageSchema.safeParse(body);
  if (!parsed.success) return { problem: `the listing is not {meetings: [...], pageCount}: ${describeIssues(parsed.error)}` };
  const meetings = parsed.data.meetings.map(readMeeting);
  const readable = meetings.filter((meeting): meeting is ListedMeeting => meeting !== undefined);
  const pageCount = parsed.data.pageCount ?? (parsed.data.meetings.length >= query.pageSize ? query.pageNumber + 1 : query.pageNumber);
  return { page: { meetings: readable, pageCount, unreadable: meetings.length - readable.length } };
}
