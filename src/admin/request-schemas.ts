import { z } from 'zod';

import { MAX_ATTENDEES } from '../core/attendee-bound.ts';
import { hasControlCharacter } from '../http/inbound-text.ts';
import { importRequestSchema, remapRequestSchema } from '../momentum/schemas.ts';
import type { EventState, JobState } from '../store/types.ts';
import { MATCH_OUTCOMES } from './match-view-schema.ts';

/**
 * Admin API inputs. Queries are strict: a misspelt filter is a 400, not a silently
 * wider listing. Times are ISO 8601 with an offset; they become epoch ms after parsing.
 */

export const JOB_STATES = ['pending', 'running', 'succeeded', 'dead', 'superseded', 'skipped', 'cancelled'] as const satisfies readonly JobState[];
export const EVENT_STATES = ['received', 'mapped', 'skipped', 'failed'] as const satisfies readonly EventState[];
export const DELIVERY_KINDS = ['remap', 'import'] as const;
/** A replay needs an ended delivery: a pending or running one is still going, a superseded one has a newer one. */
export const REPLAYABLE_STATES = ['dead', 'succeeded', 'cancelled', 'skipped'] as const satisfies readonly JobState[];

export const PAGE_LIMIT_MAX = 200;

const instant = z.iso.datetime({ offset: true, error: 'expected an ISO 8601 date-time with Z or an offset' }).transform((text) => Date.parse(text));

const limit = z.coerce
  .number({ error: 'expected a whole number' })
  .int({ error: 'expected a whole number' })
  .min(1)
  .max(PAGE_LIMIT_MAX)
  .default(50)
  .meta({ description: `Page size, at most ${PAGE_LIMIT_MAX}` });

const cursor = z.string().min(1).max(100).optional().meta({ description: 'nextCursor of the previous page' });

/** 15- or 18-character Salesforce ids (docs/protocols.md §2): letters and digits only. */
const SALESFORCE_ID = /^[A-Za-z0-9]{15}(?:[A-Za-z0-9]{3})?$/;
const salesforceId = z.string().regex(SALESFORCE_ID, 'expected a 15- or 18-character Salesforce id');

const sinceUntil = <T extends { since?: number; until?: number }>(value: T) =>
  value.since === undefined || value.until === undefined || value.since < value.until;
const sinceUntilError = { message: 'since must be before until', path: ['since'] };

// Digits only (no `1e3`, `0x10`, ` 12`), and no more than a JavaScript number holds exactly:
// both engines keep ids as 64-bit integers, so every id the API hands out is below 2^53.
const ID_TEXT = /^[1-9][0-9]{0,15}$/;
export const idParamsSchema = z.strictObject({
  id: z
    .string()
    .regex(ID_TEXT, { error: 'expected a positive whole number' })
    .transform(Number)
    .pipe(z.number().max(Number.MAX_SAFE_INTEGER, { error: `expected a positive whole number up to ${Number.MAX_SAFE_INTEGER}` })),
});

const deliveryFilterShape = {
  state: z.enum(JOB_STATES).optional(),
  kind: z.enum(DELIVERY_KINDS).optional(),
  since: instant.optional().meta({ description: 'Created at or after (ISO 8601)' }),
  until: instant.optional().meta({ description: 'Created before (ISO 8601)' }),
  meeting: z.string().min(1).max(1000).optional().meta({ description: 'The meeting: the coalescing key, e.g. source:GOOGLE_CALENDAR:abc' }),
  salesforceId: salesforceId.optional().meta({ description: 'A Salesforce id anywhere in the request (15 or 18 characters)' }),
};

export const SEARCH_TEXT_MAX = 200;

export const searchText = z
  .string()
  .min(1)
  .max(SEARCH_TEXT_MAX, { error: `at most ${SEARCH_TEXT_MAX} characters` })
  // Search text is typed by a person: a control character (a pasted tab or newline) is a mistake.
  .refine((text) => !hasControlCharacter(text), { error: 'holds a control character' })
  .meta({
    description: `Text in the meeting title, the source (TYPE:id), the import's meeting id, a Salesforce id, or the host's or an attendee's email; A-Z match a-z. At most ${SEARCH_TEXT_MAX} characters`,
  });

const matchOutcome = (what: string) =>
  z
    .enum(MATCH_OUTCOMES, { error: `match must be one of ${MATCH_OUTCOMES.join(', ')}` })
    .optional()
    .meta({ description: `${what} match record has this outcome (ambiguous, none, pinned, matched)` });

export const deliveryListQuerySchema = z
  .strictObject({ ...deliveryFilterShape, match: matchOutcome('The delivery’s'), q: searchText.optional(), limit, cursor })
  .refine(sinceUntil, sinceUntilError);

/** At most this many buckets in one answer: a day by the minute. */
export const ACTIVITY_BUCKETS_MAX = 1440;

export const activityQuerySchema = z
  .strictObject({
    since: instant.optional().meta({ description: 'Start of the first bucket (ISO 8601; default: until minus 24 hours)' }),
    until: instant.optional().meta({
      description: 'End of the last bucket, exclusive (ISO 8601; default: the end of the current minute or hour, UTC)',
    }),
    bucket: z
      .enum(['minute', 'hour'], { error: 'bucket must be "minute" or "hour"' })
      .default('hour')
      .meta({ description: `Bucket length (default hour); at most ${ACTIVITY_BUCKETS_MAX} buckets from since to until` }),
  })
  .refine(sinceUntil, sinceUntilError);

export const eventListQuerySchema = z
  .strictObject({
    source: z.string().min(1).max(100).optional().meta({ description: 'salesforce, google, calendar…' }),
    state: z.enum(EVENT_STATES).optional(),
    since: instant.optional().meta({ description: 'Received at or after (ISO 8601)' }),
    until: instant.optional().meta({ description: 'Received before (ISO 8601)' }),
    match: matchOutcome('The event’s newest'),
    q: searchText.optional().meta({
      description:
        'Text in the event: its title, the ids it carries (calendar event id, iCalUID, recording meeting id, Zoom uuid), organiser, host and attendee emails, Salesforce fields, the Salesforce ids its match records named; A-Z matching a-z',
    }),
    limit,
    cursor,
  })
  .refine(sinceUntil, sinceUntilError);

export const bulkReplayBodySchema = z.strictObject({
  filter: z
    .strictObject({
      ...deliveryFilterShape,
      state: z.enum(REPLAYABLE_STATES).default('dead'),
      includeReplayed: z.boolean().default(false).meta({ description: 'Also deliveries that were already replayed once (default: skip them)' }),
    })
    .refine(sinceUntil, sinceUntilError),
  dryRun: z.boolean().default(true).meta({ description: 'true (default): only count and sample; false: enqueue the replays' }),
});

/**
 * Longest text taken in a field of a manual delivery. The meeting's fields become its coalescing
 * key, which PostgreSQL indexes: an index entry above about 2.7 kB fails the insert (a 500 on
 * PostgreSQL, accepted on SQLite), so these stay well below it even in 3-byte characters. A
 * Salesforce id is 15 or 18 letters and digits, as everywhere else.
 */
const TEXT_LIMITS = { sourceId: 256, sourceType: 64, title: 255, email: 254 } as const;

type Check = { path: Array<string | number>; value: unknown; max?: number; salesforceId?: boolean };

function checkFields(ctx: z.RefinementCtx, checks: Check[]): void {
  for (const { path, value, max, salesforceId: isId } of checks) {
    if (typeof value !== 'string') continue;
    if (max !== undefined && value.length > max) ctx.addIssue({ code: 'custom', path, message: `at most ${max} characters` });
    if (isId && !SALESFORCE_ID.test(value)) ctx.addIssue({ code: 'custom', path, message: 'expected a 15- or 18-character Salesforce id' });
  }
}

/** Momentum's remap body, with every field that is stored, keyed or logged bounded. */
export const manualRemapBodySchema = remapRequestSchema.superRefine((request, ctx) => {
  const records = request.salesforceRecords;
  checkFields(ctx, [
    { path: ['source', 'id'], value: request.source?.id, max: TEXT_LIMITS.sourceId },
    { path: ['source', 'type'], value: request.source?.type, max: TEXT_LIMITS.sourceType },
    { path: ['meetingDetails', 'title'], value: request.meetingDetails?.title, max: TEXT_LIMITS.title },
    { path: ['meetingDetails', 'hostEmail'], value: request.meetingDetails?.hostEmail, max: TEXT_LIMITS.email },
    ...(['opportunityId', 'accountId', 'leadId'] as const).map((field) => ({ path: ['salesforceRecords', field], value: records[field], salesforceId: true })),
  ]);
});

/**
 * The import fields Momentum documents (docs/protocols.md §1). The bridge's own imports pass other
 * fields through, but an operator's body is checked against these: a misspelt `titel` is a 400
 * naming it, never a meeting imported without its title.
 */
const IMPORT_FIELDS = {
  body: ['meeting', 'processImportedMeeting'],
  meeting: ['id', 'title', 'startTime', 'endTime', 'host', 'callUrl', 'recordingUrl', 'attendees', 'salesforceAccountId', 'salesforceOpportunityId'],
  host: ['name', 'email'],
  attendee: ['email', 'isInternal', 'name'],
} as const;

function refuseUnknown(ctx: z.RefinementCtx, value: unknown, known: readonly string[], path: Array<string | number>): void {
  if (value === null || typeof value !== 'object') return;
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) ctx.addIssue({ code: 'custom', path: [...path, key], message: `unknown field; expected one of ${known.join(', ')}` });
  }
}

/** Momentum's import body, its identifying fields bounded like the remap's (the rest is checked by the shared text rule). */
export const manualImportBodySchema = importRequestSchema.superRefine((request, ctx) => {
  const meeting = request.meeting;
  refuseUnknown(ctx, request, IMPORT_FIELDS.body, []);
  refuseUnknown(ctx, meeting, IMPORT_FIELDS.meeting, ['meeting']);
  refuseUnknown(ctx, meeting.host, IMPORT_FIELDS.host, ['meeting', 'host']);
  meeting.attendees
    ?.slice(0, MAX_ATTENDEES)
    .forEach((attendee, index) => refuseUnknown(ctx, attendee, IMPORT_FIELDS.attendee, ['meeting', 'attendees', index]));
  if ((meeting.attendees?.length ?? 0) > MAX_ATTENDEES) {
    ctx.addIssue({ code: 'custom', path: ['meeting', 'attendees'], message: `at most ${MAX_ATTENDEES} attendees` });
  }
  checkFields(ctx, [
    { path: ['meeting', 'id'], value: meeting.id, max: TEXT_LIMITS.sourceId },
    { path: ['meeting', 'title'], value: meeting.title, max: TEXT_LIMITS.title },
    { path: ['meeting', 'host', 'email'], value: meeting.host?.email, max: TEXT_LIMITS.email },
    { path: ['meeting', 'salesforceAccountId'], value: meeting.salesforceAccountId, salesforceId: true },
    { path: ['meeting', 'salesforceOpportunityId'], value: meeting.salesforceOpportunityId, salesforceId: true },
  ]);
});

const queryFlag = z.enum(['true', 'false'], { error: 'expected true or false' }).transform((value) => value === 'true');

/** Momentum's remap takes the flags as query parameters (docs/protocols.md §1); the manual remap mirrors it. */
export const manualRemapQuerySchema = z.strictObject({
  triggerSummary: queryFlag.optional(),
  triggerAiSignals: queryFlag.optional(),
});

export const emptyQuerySchema = z.strictObject({});

// An email address is at most 254 characters; the path parameter of DELETE is checked the same way.
const calendarId = z
  .email({ error: "calendarId must be the calendar owner's email address" })
  .max(254, { error: 'calendarId must be at most 254 characters' })
  .transform((value) => value.toLowerCase())
  .meta({ description: "The calendar owner's email address (kept in lower case)" });

const provider = z
  .enum(['google', 'microsoft'], { error: 'provider must be "google" or "microsoft"' })
  .optional()
  .meta({ description: 'Which calendars: google or microsoft (default: the only one configured, else google)' });

export const calendarBodySchema = z.strictObject({ calendarId, provider });
export const calendarParamsSchema = z.strictObject({ calendarId });
export const calendarRemoveQuerySchema = z.strictObject({ provider });

export type DeliveryListQuery = z.output<typeof deliveryListQuerySchema>;
export type EventListQueryInput = z.output<typeof eventListQuerySchema>;
export type ActivityQueryInput = z.output<typeof activityQuerySchema>;
export type BulkReplayBody = z.output<typeof bulkReplayBodySchema>;
export type DeliveryFilterInput = Omit<DeliveryListQuery, 'limit' | 'cursor' | 'q' | 'match'>;

/**
 * POST /admin/mapping/preview: a payload as its sender posts it, or a stored event, and optionally
 * a proposed mapping file. One object rather than a union, so each mistake is named by its field.
 */
export const mappingPreviewBodySchema = z
  .strictObject({
    source: z
      .enum(['salesforce', 'calendar'], { error: 'source must be "salesforce" or "calendar"' })
      .optional()
      .meta({ description: 'Which sender the payload is from; with payload, instead of eventId' }),
    payload: z
      .union([z.string(), z.record(z.string(), z.unknown())])
      .optional()
      .meta({
        description:
          'salesforce: the SOAP Outbound Message as text; calendar: the signed body of POST /calendar/events (a meeting, or a recording with kind "recording")',
      }),
    eventId: z
      .int({ error: 'expected a positive whole number' })
      .positive({ error: 'expected a positive whole number' })
      .max(Number.MAX_SAFE_INTEGER)
      .optional()
      .meta({ description: 'A stored inbound event, instead of source and payload' }),
    mapping: z
      .record(z.string(), z.unknown(), { error: 'expected a mapping file (a JSON object)' })
      .optional()
      .meta({ description: 'A proposed mapping file (the JSON of MAPPING_FILE): previewed beside the rules in force' }),
  })
  .superRefine((body, ctx) => {
    if (body.eventId !== undefined) {
      for (const key of ['source', 'payload'] as const)
        if (body[key] !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: 'give either eventId, or source and payload' });
      return;
    }
    if (body.source === undefined) ctx.addIssue({ code: 'custom', path: ['source'], message: 'required unless eventId is given' });
    if (body.payload === undefined) ctx.addIssue({ code: 'custom', path: ['payload'], message: 'required unless eventId is given' });
    if (body.source === 'salesforce' && body.payload !== undefined && typeof body.payload !== 'string')
      ctx.addIssue({ code: 'custom', path: ['payload'], message: 'expected the Outbound Message XML as a string' });
    if (body.source === 'calendar' && typeof body.payload === 'string')
      ctx.addIssue({ code: 'custom', path: ['payload'], message: 'expected the signed body as a JSON object' });
  });

export type MappingPreviewBody = z.output<typeof mappingPreviewBodySchema>;
