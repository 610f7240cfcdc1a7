import { z } from 'zod';

import { deliveryActionSchema } from './delivery-action.ts';
import { matchViewSchema } from './match-view-schema.ts';
import { readbackStateSchema, readbackViewSchema } from './readback-view.ts';
import { EVENT_STATES, JOB_STATES } from './request-schemas.ts';

/** Admin API answers: the OpenAPI document describes them from these schemas. Times are ISO 8601. */

const time = z.string().meta({ description: 'ISO 8601, UTC' });
const id = z.int().positive();

export const errorSchema = z.object({
  error: z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() }),
});

export const jobSummarySchema = z.object({
  id,
  kind: z.string(),
  state: z.enum(JOB_STATES),
  meeting: z.string().nullable().meta({ description: 'The coalescing key' }),
  attempts: z.int(),
  createdAt: time,
  updatedAt: time,
  runAt: time,
  number: id.nullable().meta({
    description:
      "A delivery's number (remaps and imports, replays and manual ones included): no gaps from internal jobs; null for other kinds. API paths take the id",
  }),
  eventId: id.nullable(),
  replayOf: id.nullable(),
  supersededBy: id.nullable(),
  lastError: z.string().nullable(),
});

export const attemptSchema = z.object({
  id,
  startedAt: time,
  durationMs: z.int(),
  status: z.int().optional(),
  errorClass: z.string().optional(),
  error: z.string().optional().meta({ description: 'At most 4 KB of the upstream answer' }),
  upstreamRequestId: z.string().optional(),
});

export const eventSummarySchema = z.object({
  id,
  messageId: id,
  source: z.string(),
  senderId: z.string().nullable(),
  dedupeKey: z.string(),
  receivedAt: time,
  state: z.enum(EVENT_STATES),
  stateReason: z.string().nullable(),
  title: z
    .string()
    .nullable()
    .meta({ description: "The meeting's title as the event carries it (a calendar's or recording's title, a Salesforce Event's Subject)" }),
});

/** A delivery in a listing: the job, and what an operator knows its meeting by, read from the request sent. */
export const deliverySummarySchema = jobSummarySchema.extend({
  title: z.string().nullable().meta({ description: "The meeting's title (a remap's meetingDetails.title, an import's meeting.title)" }),
  sourceRef: z.string().nullable().meta({ description: "A remap's source as TYPE:id, an import's meeting.id" }),
  startTime: z.string().nullable().meta({ description: "The meeting's start time as sent (meetingDetails.startTime, meeting.startTime)" }),
  salesforceIds: z
    .object({
      opportunityId: z.string().optional(),
      accountId: z.string().optional(),
      leadId: z.string().optional(),
      salesforceAccountId: z.string().optional(),
      salesforceOpportunityId: z.string().optional(),
    })
    .meta({ description: "The Salesforce ids sent, by the request's field names (a remap's salesforceRecords, an import's meeting)" }),
  readback: readbackStateSchema,
});

const page = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), nextCursor: z.string().nullable() });
export const jobPageSchema = page(jobSummarySchema);
export const deliveryPageSchema = page(deliverySummarySchema);
export const eventPageSchema = page(eventSummarySchema);

export const deliveryDetailSchema = z.object({
  delivery: jobSummarySchema.extend({
    request: z.unknown().meta({ description: 'The body sent to Momentum' }),
    flags: z.object({ triggerSummary: z.boolean(), triggerAiSignals: z.boolean() }).nullable(),
    replay: z.boolean(),
    result: z.unknown(),
  }),
  attempts: z.array(attemptSchema),
  event: eventSummarySchema.nullable().meta({ description: 'The inbound event it came from' }),
  supersededBy: jobSummarySchema.nullable(),
  replayOf: jobSummarySchema.nullable(),
  replays: z.array(jobSummarySchema),
  match: matchViewSchema
    .nullable()
    .meta({ description: "The match record that made it (its event's newest at or before it was created); null when none was stored" }),
  readback: readbackViewSchema,
  meetingKey: z
    .string()
    .nullable()
    .meta({ description: "Its meeting's page (GET /admin/meetings/:key): its event's map-event serial key; null for a manual delivery" }),
  meetingTitle: z.string().nullable().meta({ description: "The meeting's title: its event's, else the request's" }),
  action: deliveryActionSchema.nullable().meta({ description: 'For a dead delivery: what to do about its failure; null otherwise' }),
});

export const eventDetailSchema = z.object({
  event: eventSummarySchema.extend({ parsedPayload: z.unknown() }),
  message: z.object({ id, source: z.string(), senderId: z.string().nullable(), receivedAt: time, rawPayload: z.string() }),
  jobs: z.array(jobSummarySchema),
  match: matchViewSchema.nullable().meta({ description: 'Its newest match record (calendar events and recordings); null when none was stored' }),
});

export const jobAnswerSchema = z.object({ job: jobSummarySchema });
export const deliveryAnswerSchema = z.object({ delivery: jobSummarySchema });

export const bulkReplayAnswerSchema = z.object({
  dryRun: z.boolean(),
  matched: z.int().meta({ description: 'Deliveries the filter selects' }),
  replayed: z.int().meta({ description: 'Replays this run created (a dry run: how many would be); a delivery another run replayed meanwhile is not counted' }),
  capped: z.boolean().meta({ description: 'More matched than ADMIN_BULK_MAX; run again for the rest' }),
  sample: z.array(jobSummarySchema),
});

export const statsSchema = z.object({
  at: time,
  counts: z.array(z.object({ kind: z.string(), state: z.enum(JOB_STATES), count: z.int() })),
  oldestPending: z.array(z.object({ kind: z.string(), createdAt: time, ageMs: z.int() })),
  deadLast24h: z.array(z.object({ kind: z.string(), count: z.int() })),
  pendingByPriority: z
    .array(z.object({ kind: z.string(), priority: z.enum(['operator', 'live', 'bulk']), count: z.int() }))
    .meta({ description: 'Pending jobs per priority class: operator actions go first, then live changes, then bulk replays' }),
  stored: z
    .object({
      inboundMessages: z.int(),
      inboundEvents: z.int(),
      jobs: z.int(),
      attempts: z.int(),
      oldestEventAt: time.nullable().meta({ description: 'The oldest inbound event still stored (RETENTION_DAYS removes older ones)' }),
      oldestJobAt: time.nullable(),
    })
    .meta({ description: 'How much the store holds: rows per table, from counters kept as rows change' }),
  retention: z
    .object({
      lastPassAt: time,
      cutoff: time.meta({ description: 'Rows older than this were removable (RETENTION_DAYS before the pass)' }),
      durationMs: z.int(),
      removed: z.record(z.string(), z.int()).meta({ description: 'Rows removed per table' }),
      more: z.boolean().meta({ description: 'The pass stopped at its bound with rows left: the next one runs at the next check' }),
    })
    .nullable()
    .meta({ description: 'The last retention pass (docs/operations.md, retention); null before the first or with RETENTION_DAYS=0' }),
  rateLimit: z
    .object({
      key: z.string(),
      tokens: z.number().meta({ description: 'Calls that may go to Momentum now (capacity minus calls in the window; 0 while blocked)' }),
      capacity: z.int(),
      windowMs: z.int(),
      used: z.int().meta({ description: 'Calls in the current sliding window, over every instance' }),
      nextFreeAt: time.meta({ description: 'When the next call may go' }),
      blockedUntil: time.nullable().meta({ description: 'Set after a 429 (or rate-limit headers saying the budget is spent)' }),
    })
    .nullable()
    .meta({ description: "Momentum's budget; null when pacing is off" }),
  quota: z
    .union([
      z.object({
        limit: z.int().meta({ description: 'Calls Momentum takes per window (MOMENTUM_RATE_LIMIT)' }),
        windowSeconds: z.number(),
        usedInWindow: z.int().meta({ description: 'Calls in the current sliding window, over every instance' }),
        remaining: z.int().meta({ description: 'Calls that may go now (0 while blocked)' }),
        nextSlotAt: time.meta({ description: 'When the next call may go (now while calls remain)' }),
        blockedUntil: time.nullable().meta({ description: 'Set after a 429 (or rate-limit headers saying the budget is spent)' }),
        backlog: z.int().meta({ description: 'Pending remaps and imports: each needs a call from this budget' }),
        etaSeconds: z.number().meta({
          description: 'Seconds from `at` until the last of the backlog has gone, at the configured limit (to the millisecond); 0 when the backlog is empty',
        }),
      }),
      z.object({ off: z.literal(true) }),
    ])
    .meta({ description: "Momentum's budget and the backlog waiting for it; {off: true} when pacing is off" }),
});

export const activitySchema = z.object({
  buckets: z.array(
    z.object({
      start: time.meta({ description: 'Start of the bucket; it ends where the next starts (the last, at until)' }),
      inbound: z.int().meta({ description: 'Inbound events received' }),
      delivered: z.int().meta({ description: 'Remaps and imports that succeeded' }),
      dead: z.int().meta({ description: 'Remaps and imports that went dead' }),
      skipped: z.int().meta({ description: 'Remaps and imports that ended skipped (e.g. unchanged since the last one sent)' }),
      superseded: z.int().meta({ description: 'Remaps and imports replaced by a newer one of the same meeting while they waited' }),
      rematched: z.int().meta({ description: 'Meetings re-matched after a CRM change (a remap sent because the answer moved)' }),
    }),
  ),
});

export const watchedCalendarSchema = z.object({
  provider: z.enum(['google', 'microsoft']),
  calendarId: z.string().meta({ description: "The calendar owner's email (Google) or the mailbox (Microsoft)" }),
  watching: z.boolean(),
  addedBy: z.string().meta({ description: 'config (GOOGLE_CALENDAR_IDS, MICROSOFT_CALENDAR_USERS) or admin (added through this API)' }),
  hasSyncToken: z.boolean().meta({ description: 'A completed sync left a sync token or delta link: the next sync is incremental' }),
  channel: z
    .object({ id: z.string(), expiration: time, createdAt: time.meta({ description: 'When it was opened or last renewed' }) })
    .nullable()
    .meta({ description: 'The live push channel (Google) or Graph subscription (Microsoft); null while none is open' }),
  lastSyncAt: time.nullable().meta({ description: 'When the last sync completed; null before the first' }),
  lastError: z.string().nullable().meta({
    description: 'Why the last sync, watch (Google) or subscription (Microsoft) attempt failed; null once a sync succeeds (for Microsoft, a subscription too)',
  }),
});
export const calendarListSchema = z.object({ calendars: z.array(watchedCalendarSchema) });

export const openApiDocumentSchema = z.looseObject({ openapi: z.string(), paths: z.record(z.string(), z.unknown()) });

export type JobSummary = z.infer<typeof jobSummarySchema>;
export type DeliverySummary = z.infer<typeof deliverySummarySchema>;
export type EventSummary = z.infer<typeof eventSummarySchema>;
export type DeliveryDetail = z.infer<typeof deliveryDetailSchema>;
export type EventDetail = z.infer<typeof eventDetailSchema>;
export type BulkReplayAnswer = z.infer<typeof bulkReplayAnswerSchema>;
export type AdminStats = z.infer<typeof statsSchema>;
export type Quota = AdminStats['quota'];
export type Activity = z.infer<typeof activitySchema>;
export type WatchedCalendarView = z.infer<typeof watchedCalendarSchema>;

const previewResultSchema = z.object({
  notificationId: z.string().optional().meta({ description: 'Salesforce: the notification this result is for' }),
  outcome: z.enum(['remap', 'import', 'skipped']),
  request: z.unknown().optional().meta({ description: 'The body that would be sent to Momentum (remap or import)' }),
  flags: z
    .object({ triggerSummary: z.boolean(), triggerAiSignals: z.boolean() })
    .optional()
    .meta({ description: 'A remap: the query flags it would be sent with' }),
  reason: z.string().optional().meta({ description: 'Skipped: why' }),
  rule: z
    .string()
    .meta({ description: 'The mapping rule that decided (sobject:Event, explicit_ids, salesforce_link, contact_role…, no_crm_match); none when skipped' }),
  match: z
    .unknown()
    .optional()
    .meta({ description: 'Calendar events and recordings: the match record this mapping would store (docs/calendars.md, matching)' }),
});
const previewResultsSchema = z.object({ results: z.array(previewResultSchema).meta({ description: 'One per record, in payload order' }) });

export const mappingPreviewSchema = previewResultsSchema.extend({
  source: z.string().meta({ description: "The inbound source it maps as: salesforce, calendar, recording (for eventId, the stored event's source)" }),
  proposed: previewResultsSchema.optional().meta({ description: 'With a proposed mapping file: the same records under it, results in the same order' }),
});

export type MappingPreviewResult = z.infer<typeof previewResultSchema>;
export type MappingPreviewAnswer = z.infer<typeof mappingPreviewSchema>;
