import { z } from 'zod';

import { MAX_ATTENDEES } from '../core/attendee-bound.ts';
import { httpUrl } from '../core/http-url.ts';
import { classifySalesforceId, normalizeSalesforceId, type RecordKind } from '../mapping/salesforce-ids.ts';

/**
 * The body of `POST /calendar/events`, version 1: one meeting from a calendar or tool without a
 * native integration (Outlook through a flow, Calendly, a script), signed with Standard Webhooks.
 * Unknown fields are refused at every level (a 400 naming each): a misspelt or misplaced field,
 * such as a recording's host sent as `organizer`, would otherwise be dropped without a word. A
 * later version that takes more fields bumps `version`.
 */

const dateTime = z.iso.datetime({ offset: true, error: 'expected an ISO 8601 date-time with Z or an offset' });
const email = z.email({ error: 'expected an email address' });
const person = z.strictObject({
  email: email.meta({ description: 'Email address', example: 'hank.buyer@globex.test' }),
  name: z.string().max(256).optional().meta({ description: 'Display name', example: 'Hank Buyer' }),
});

function salesforceId(kind: RecordKind) {
  return z
    .string()
    .transform((text, ctx) => {
      const id = normalizeSalesforceId(text);
      if (id === undefined || classifySalesforceId(id) !== kind) {
        ctx.addIssue({ code: 'custom', message: `expected a 15- or 18-character Salesforce ${kind} id` });
        return z.NEVER;
      }
      return id;
    })
    .optional();
}

const salesforceIds = z.strictObject({ opportunityId: salesforceId('opportunity'), accountId: salesforceId('account'), leadId: salesforceId('lead') });
/** Links Momentum shows to people: absolute http(s) only (src/core/http-url.ts). */
const link = httpUrl().max(4096);

export const genericCalendarEventSchema = z
  .strictObject({
    kind: z.literal('meeting', { error: 'expected "meeting" or "recording"' }).optional().meta({ description: 'meeting (the default) or recording' }),
    version: z.literal(1, { error: 'expected version 1' }).meta({ description: 'Schema version of this body', example: '1' }),
    id: z
      .string()
      .regex(/^\S{1,256}$/, 'expected 1 to 256 characters without spaces')
      .meta({ description: "The meeting's id in the sending system (Momentum source.id)", example: 'AAMkAGI2TG93AAA=' }),
    sourceType: z
      .string()
      .regex(/^[A-Z][A-Z0-9_]{0,63}$/, 'expected an upper-case source type such as MS_TEAMS or USER_PROVIDED')
      // Never hard-reject an unknown type at the edge (docs/protocols.md §1): any upper-case name is kept.
      .meta({ description: 'Momentum source.type of the meeting', example: 'MS_TEAMS' }),
    status: z
      .enum(['confirmed', 'cancelled'], { error: 'expected "confirmed" or "cancelled"' })
      .default('confirmed')
      .meta({ description: 'cancelled: the meeting was cancelled or deleted; nothing is sent, and what is pending for it is cancelled' }),
    iCalUId: z
      .string()
      .regex(/^\S{1,1024}$/, 'expected 1 to 1024 characters without spaces')
      .optional()
      .meta({ description: "The meeting's iCalendar UID (Outlook's iCalUId, Google's iCalUID): sources with the same one are one meeting" }),
    joinUrl: link
      .optional()
      .meta({ description: 'The call or conference link (http or https): a source near the same start with the same link is the same meeting' }),
    title: z.string().max(1024).optional().meta({ description: 'Meeting title', example: 'Globex pricing review' }),
    start: dateTime.meta({ description: 'Start, RFC 3339 with offset', example: '2026-03-02T16:00:00Z' }),
    end: dateTime.meta({ description: 'End, RFC 3339 with offset', example: '2026-03-02T16:30:00Z' }),
    updated: dateTime.optional().meta({
      description: 'When the meeting last changed in the sending system: of two events of one meeting, the later `updated` wins whatever order they arrive in',
      example: '2026-03-01T09:12:00Z',
    }),
    organizer: person.meta({ description: 'The host; becomes meetingDetails.hostEmail' }),
    attendees: z.array(person).max(MAX_ATTENDEES).default([]).meta({ description: 'Everyone invited, organizer included or not' }),
    description: z
      .string()
      .max(64 * 1024)
      .optional()
      .meta({ description: 'Body text; Salesforce links and ids in it are matched' }),
    location: z.string().max(4096).optional(),
    salesforce: salesforceIds.optional().meta({ description: 'Explicit Salesforce ids; they win over every other matching rule' }),
  })
  .refine((event) => Date.parse(event.end) >= Date.parse(event.start), { path: ['end'], message: 'end must not be before start' });

export type GenericCalendarEvent = z.infer<typeof genericCalendarEventSchema>;

/**
 * The body of `POST /calendar/events` for a recorded meeting (`"kind": "recording"`), version 1:
 * a recording from a tool of the team's own, imported into Momentum like a Zoom recording.
 */
export const genericRecordingSchema = z.strictObject({
  kind: z.literal('recording'),
  version: z.literal(1, { error: 'expected version 1' }),
  id: z
    .string()
    .regex(/^\S{1,256}$/, 'expected 1 to 256 characters without spaces')
    .meta({ description: "The meeting's id in the recording tool; imports of one id coalesce, and one imported is not imported again" }),
  recordingUrl: link.meta({ description: 'Where the recording is (http or https)' }),
  callUrl: link.optional().meta({ description: 'The call or conference link (http or https)' }),
  title: z.string().max(1024).optional(),
  start: dateTime.optional(),
  end: dateTime.optional(),
  host: person.optional().meta({ description: 'The host; a company person' }),
  attendees: z.array(person).max(MAX_ATTENDEES).default([]),
  salesforce: salesforceIds.optional().meta({ description: 'Explicit Salesforce ids; they win over attendee matching' }),
});

export type GenericRecording = z.infer<typeof genericRecordingSchema>;
