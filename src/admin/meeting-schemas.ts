import { z } from 'zod';

import { hasControlCharacter } from '../http/inbound-text.ts';
import { classifySalesforceId, normalizeSalesforceId, type RecordKind } from '../mapping/salesforce-ids.ts';
import { MATCH_OUTCOMES, matchViewSchema } from './match-view-schema.ts';
import { timelineEntrySchema } from './meeting-timeline.ts';
import { idParamsSchema, PAGE_LIMIT_MAX, searchText } from './request-schemas.ts';
import { deliverySummarySchema, eventSummarySchema, jobSummarySchema } from './response-schemas.ts';

/** The meeting routes' inputs and answers: a meeting's page, the match queue, and an operator's pin. */

const time = z.string().meta({ description: 'ISO 8601, UTC' });

export const meetingParamsSchema = z.strictObject({
  key: z
    .string()
    .min(1)
    .max(1000, { error: 'at most 1000 characters' })
    .meta({ description: "The meeting key (URL-encoded): the map-event job's serial key, as a match record's meetingKey names it" }),
});

/** A meeting by its id (`GET /admin/meetings/by-id/:id`): a positive integer, as every id route takes it. */
export const meetingIdParamsSchema = idParamsSchema;

export const matchListQuerySchema = z.strictObject({
  outcome: z
    .enum(MATCH_OUTCOMES, { error: `outcome must be one of ${MATCH_OUTCOMES.join(', ')}` })
    .meta({ description: 'Meetings whose newest match record has this outcome (ambiguous: the queue an operator pins from)' }),
  limit: z.coerce
    .number({ error: 'expected a whole number' })
    .int({ error: 'expected a whole number' })
    .min(1)
    .max(PAGE_LIMIT_MAX)
    .default(50)
    .meta({ description: `Page size, at most ${PAGE_LIMIT_MAX}` }),
  cursor: z.string().min(1).max(100).optional().meta({ description: 'nextCursor of the previous page' }),
});

const PIN_FIELDS = ['opportunityId', 'accountId', 'leadId'] as const;

const KIND_NAME: Record<RecordKind, string> = { opportunity: 'an Opportunity', account: 'an Account', lead: 'a Lead' };

/** A Salesforce id of one kind (docs/protocols.md §2): 15 or 18 characters, its checksum right, its key prefix the kind's; kept as 18. */
const recordId = (kind: RecordKind, prefix: string) =>
  z
    .string()
    .max(18, { error: 'expected a 15- or 18-character Salesforce id' })
    .transform((text, ctx) => {
      const id = normalizeSalesforceId(text);
      if (id === undefined) ctx.addIssue({ code: 'custom', message: 'expected a 15- or 18-character Salesforce id' });
      else if (classifySalesforceId(id) !== kind) ctx.addIssue({ code: 'custom', message: `expected ${KIND_NAME[kind]} id (prefix ${prefix})` });
      return id ?? text;
    })
    .meta({ description: `${KIND_NAME[kind]} id (${prefix}…), 15 or 18 characters; kept as 18` });

export const REASON_MAX = 500;

export const pinBodySchema = z
  .strictObject({
    opportunityId: recordId('opportunity', '006').optional(),
    accountId: recordId('account', '001').optional(),
    leadId: recordId('lead', '00Q').optional(),
    reason: z
      .string({ error: 'reason is required: say why this record' })
      .max(REASON_MAX, { error: `at most ${REASON_MAX} characters` })
      .refine((text) => text.trim() !== '', { error: 'must not be blank' })
      // Typed by a person in one line: a control character is a paste mistake.
      .refine((text) => !hasControlCharacter(text), { error: 'holds a control character' })
      .meta({ description: `Why this record, 1 to ${REASON_MAX} characters: kept with the pin and shown in every match record it makes` }),
  })
  .refine((body) => PIN_FIELDS.some((field) => body[field] !== undefined), {
    error: 'give at least one of opportunityId, accountId, leadId',
    path: ['opportunityId'],
  });

export type PinBody = z.output<typeof pinBodySchema>;
export type MatchListQuery = z.output<typeof matchListQuerySchema>;

export const pinViewSchema = z.object({
  meetingKey: z.string(),
  records: z.object({ opportunityId: z.string().optional(), accountId: z.string().optional(), leadId: z.string().optional() }),
  pinnedBy: z.string().meta({ description: "Who pinned: the admin key's fingerprint, as the admin change log names it" }),
  reason: z.string(),
  pinnedAt: time,
});

export const meetingSourceSchema = z.object({
  meetingKey: z.string().meta({ description: "The source record: its map-event job's serial key, the key of its own page" }),
  source: z.string().meta({ description: 'The system it came from: google, microsoft, calendar (signed), salesforce, zoom, recording (signed)' }),
  start: time.nullable().meta({ description: "Its newest state's start" }),
  host: z.string().nullable(),
  title: z.string().nullable(),
  cancelled: z.boolean().meta({ description: 'Its newest state cancels the meeting' }),
  importedId: z.string().nullable().meta({ description: 'A recording: the id Momentum imported it under' }),
  eventId: z.int().positive().meta({ description: 'The inbound event of its newest state' }),
  firstSeenAt: time,
  updatedAt: time,
});

const meetingIdentityFields = {
  meetingId: z
    .int()
    .positive()
    .nullable()
    .meta({ description: 'The meeting this source is part of (GET /admin/meetings/by-id/:id); null before it was first mapped' }),
  sources: z.array(meetingSourceSchema).meta({ description: 'Every source record of the meeting, this one included, oldest first' }),
};

export const meetingDetailSchema = z.object({
  meetingKey: z.string(),
  ...meetingIdentityFields,
  title: z.string().nullable().meta({ description: "The meeting's title: the newest event's that has one, else its source record's" }),
  start: z.string().nullable().meta({ description: "The newest event's start, as stored" }),
  pin: pinViewSchema.nullable().meta({ description: "An operator's pin: it wins over every matching rule" }),
  matches: z.array(matchViewSchema).meta({ description: 'Its match records, newest first (at most 50)' }),
  events: z.array(eventSummarySchema).meta({ description: 'The inbound events whose map-event jobs have this key, newest first (at most 50)' }),
  deliveries: z.array(deliverySummarySchema).meta({ description: 'The remaps and imports of those events, newest first (at most 50)' }),
  timeline: z.array(timelineEntrySchema).meta({
    description:
      'Everything above as one list, newest first: each event, match record, delivery, replay and attempt (of the 50 newest events and deliveries), and the pin; entries of one millisecond show the later step first',
  }),
  timelineFrom: z.string().nullable().meta({
    description:
      'Null when the timeline holds everything on record; else the instant it starts at: a list above was cut at 50, and older entries are left out of the timeline so no delivery shows without its event',
  }),
});

export const meetingByIdSchema = z.object({
  meetingId: z.int().positive().meta({ description: 'The meeting (an id of a meeting since joined into it answers with this one)' }),
  absorbedIds: z.array(z.int().positive()).meta({ description: 'Meetings joined into this one: their ids answer this page' }),
  title: z.string().nullable().meta({ description: "The newest event's title, whichever source it came from" }),
  start: z.string().nullable(),
  cancelled: z.boolean().meta({ description: 'A source cancelled it' }),
  sources: meetingIdentityFields.sources,
  matches: z.array(matchViewSchema).meta({ description: 'The match records of every source, newest first (at most 50)' }),
  events: z.array(eventSummarySchema).meta({ description: 'The inbound events of every source, newest first (at most 50)' }),
  deliveries: z.array(deliverySummarySchema).meta({ description: 'The remaps and imports of those events, newest first (at most 50)' }),
});

export const MEETING_SEARCH_MAX = 50;

export const meetingSearchQuerySchema = z.strictObject({
  q: searchText.meta({
    description:
      "Text anywhere a meeting left it: an event's title, calendar event id, iCalUID, recording meeting id or Zoom uuid, an organiser's, host's or attendee's email, a Salesforce field or id (of the event, of a match record, of a delivery sent); A-Z matching a-z",
  }),
  limit: z.coerce
    .number({ error: 'expected a whole number' })
    .int({ error: 'expected a whole number' })
    .min(1)
    .max(MEETING_SEARCH_MAX)
    .default(20)
    .meta({ description: `Meetings answered, at most ${MEETING_SEARCH_MAX}` }),
});

export const meetingHitSchema = z.object({
  meetingKey: z.string().meta({ description: 'Its page: GET /admin/meetings/:key' }),
  meetingId: meetingIdentityFields.meetingId,
  title: z.string().nullable().meta({ description: "The newest event's title, else its source record's" }),
  start: z.string().nullable().meta({ description: "The newest event's start, else its source record's" }),
  sources: z
    .array(z.object({ meetingKey: z.string(), source: z.string() }))
    .meta({ description: 'Every source record of its meeting (this one included); just this one before it was first mapped' }),
  lastActivityAt: time.nullable().meta({ description: 'The newest event received, delivery created or changed, or match record made' }),
  counts: z.object({ events: z.int(), deliveries: z.int(), matches: z.int() }),
  foundIn: z.array(z.enum(['event', 'delivery'])).meta({ description: 'Where the text was found: an inbound event (or its match records), a delivery sent' }),
});

export const meetingSearchAnswerSchema = z.object({
  items: z.array(meetingHitSchema).meta({ description: 'Newest activity first' }),
  more: z.boolean().meta({ description: 'More meetings hold the text than were answered: narrow it (an id, an email)' }),
});

export const matchQueueItemSchema = z.object({
  id: z.int().positive().meta({ description: 'The match record' }),
  meetingKey: z.string(),
  eventId: z.int().positive(),
  title: z.string().nullable().meta({ description: "The event's title" }),
  start: z.string().nullable(),
  outcome: z.enum(MATCH_OUTCOMES),
  rule: z.string(),
  summary: z.string(),
  records: matchViewSchema.shape.records,
  policy: matchViewSchema.shape.policy,
  candidates: matchViewSchema.shape.candidates,
  createdAt: time,
});
export const matchPageSchema = z.object({ items: z.array(matchQueueItemSchema), nextCursor: z.string().nullable() });

export const pinAnswerSchema = z.object({
  pin: pinViewSchema,
  job: jobSummarySchema.meta({ description: "The map-event job re-mapping the meeting's newest event under the pin" }),
});

export type PinView = z.infer<typeof pinViewSchema>;
export type MeetingDetail = z.infer<typeof meetingDetailSchema>;
export type MeetingSourceView = z.infer<typeof meetingSourceSchema>;
export type MeetingById = z.infer<typeof meetingByIdSchema>;
export type MatchQueueItem = z.infer<typeof matchQueueItemSchema>;
export type MeetingSearchQuery = z.output<typeof meetingSearchQuerySchema>;
export type MeetingHit = z.infer<typeof meetingHitSchema>;
