import { z } from 'zod';

import { httpUrl } from '../core/http-url.ts';

/**
 * The Momentum API contracts (docs/protocols.md §1). One schema per contract; types come from z.infer.
 * A request that fails its own schema is never sent (dead at once as `invalid_request`).
 */

/**
 * Source-type names seen in Momentum's meeting listing plus the documented GOOGLE_CALENDAR.
 * Not confirmed to be the remap list (docs/protocols.md §1), so it only documents and suggests:
 * an unknown type is accepted and sent as given.
 */
export const KNOWN_SOURCE_TYPES = [
  'GOOGLE_CALENDAR',
  'AIRCALL',
  'CHORUS',
  'CLOUDTALK',
  'DIALPAD',
  'GONG',
  'MINDTICKLE',
  'MOMENTUM',
  'MS_TEAMS',
  'ORUM',
  'OUTREACH',
  'RINGCENTRAL',
  'SALESLOFT',
  'SALESLOFT_CI',
  'USER_PROVIDED',
  'VONAGE',
  'WEBEX',
  'WINGMAN',
  'WISER',
  'ZOOM',
  'ZOOM_PHONE',
] as const;

// Checked, never rewritten: the body is sent exactly as the mapping built it.
const text = z.string().regex(/\S/, 'expected a non-empty string');
// Momentum's schema says `date-time` (RFC 3339): an offset or Z is required.
const dateTime = z.iso.datetime({ offset: true, error: 'expected an ISO 8601 date-time with Z or an offset' });
const email = z.email({ error: 'expected an email address' });

export const remapSourceSchema = z.strictObject({
  id: text,
  // A free string: never hard-reject an unknown type at the edge (docs/protocols.md §1).
  type: text,
});

const SALESFORCE_ID_FIELDS = ['opportunityId', 'accountId', 'leadId'] as const;

export const salesforceRecordsSchema = z
  .strictObject({ opportunityId: text.optional(), accountId: text.optional(), leadId: text.optional() })
  .refine((records) => SALESFORCE_ID_FIELDS.some((field) => records[field] !== undefined), {
    message: 'salesforceRecords needs at least one of opportunityId, accountId, leadId',
  });

export const meetingDetailsSchema = z
  .strictObject({
    momentumMeetingId: z.int({ error: 'expected an integer' }).optional(),
    title: text.optional(),
    startTime: dateTime.optional(),
    hostEmail: email.optional(),
  })
  // An empty meetingDetails identifies no meeting; with momentumMeetingId the rest is not needed.
  .refine((details) => Object.values(details).some((value) => value !== undefined), {
    message: 'meetingDetails needs momentumMeetingId or at least one of title, startTime, hostEmail',
  });

export const remapRequestSchema = z
  .strictObject({
    source: remapSourceSchema.optional(),
    salesforceRecords: salesforceRecordsSchema,
    meetingDetails: meetingDetailsSchema.optional(),
  })
  // The seed's schema marks source required but its prose says either suffices: accept either.
  .refine((request) => request.source !== undefined || request.meetingDetails !== undefined, {
    message: 'a remap needs source or meetingDetails',
  });

/** Sent as query parameters, and only when true. */
export const remapFlagsSchema = z.strictObject({
  triggerSummary: z.boolean().default(false),
  triggerAiSignals: z.boolean().default(false),
});

/** Extra fields are tolerated: the response is barely documented. */
export const remapResponseSchema = z.looseObject({
  accepted: z.boolean(),
  requestId: z.string(),
});

// Required fields of the import are undocumented: everything optional, but typed when given,
// and unknown fields passed through as they are.
export const importAttendeeSchema = z.looseObject({
  email: email.optional(),
  isInternal: z.boolean().optional(),
  name: z.string().optional(),
});

export const importMeetingSchema = z.looseObject({
  id: text.optional(),
  title: z.string().optional(),
  startTime: dateTime.optional(),
  endTime: dateTime.optional(),
  host: z.looseObject({ name: z.string().optional(), email: email.optional() }).optional(),
  // Links Momentum shows to people: absolute http(s) only, never `javascript:` or `data:`.
  callUrl: httpUrl().optional(),
  recordingUrl: httpUrl().optional(),
  attendees: z.array(importAttendeeSchema).optional(),
  salesforceAccountId: text.optional(),
  salesforceOpportunityId: text.optional(),
});

export const importRequestSchema = z.looseObject({
  meeting: importMeetingSchema,
  processImportedMeeting: z.boolean().optional(),
});

/** What a `remap` job's payload holds. `replay` (admin replay) bypasses the unchanged rule. */
export const remapDeliveryPayloadSchema = z.strictObject({
  request: remapRequestSchema,
  flags: remapFlagsSchema.default({ triggerSummary: false, triggerAiSignals: false }),
  replay: z.boolean().optional(),
});

/** What an `import` job's payload holds. `replay` (admin replay) imports a meeting that was imported already. */
export const importDeliveryPayloadSchema = z.strictObject({
  request: importRequestSchema,
  replay: z.boolean().optional(),
});

export type KnownSourceType = (typeof KNOWN_SOURCE_TYPES)[number];
export type RemapSource = z.infer<typeof remapSourceSchema>;
export type SalesforceRecords = z.infer<typeof salesforceRecordsSchema>;
export type MeetingDetails = z.infer<typeof meetingDetailsSchema>;
export type RemapRequest = z.infer<typeof remapRequestSchema>;
export type RemapFlags = z.infer<typeof remapFlagsSchema>;
export type RemapResponse = z.infer<typeof remapResponseSchema>;
export type ImportMeeting = z.infer<typeof importMeetingSchema>;
export type ImportRequest = z.infer<typeof importRequestSchema>;
export type RemapDeliveryPayload = z.infer<typeof remapDeliveryPayloadSchema>;
export type ImportDeliveryPayload = z.infer<typeof importDeliveryPayloadSchema>;
