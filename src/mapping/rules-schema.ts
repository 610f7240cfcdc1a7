import { z } from 'zod';

import type { MatchingRules } from '../matching/types.ts';

/**
 * The mapping rules file (MAPPING_FILE): how a Salesforce sObject becomes a Momentum remap, and
 * the calendar section the calendar mapper reads. One schema; the loader, docs/salesforce.md and
 * deploy/mapping.example.json follow it. Strict objects: a misspelt key is an error, not a no-op.
 */

// Salesforce API names: letters, digits and underscores, starting with a letter (`Meeting__c`).
const apiName = (what: string) =>
  z
    .string({ error: 'expected string' })
    .regex(
      /^[A-Za-z][A-Za-z0-9_]*$/,
      `expected a Salesforce ${what} API name such as ${what === 'field' ? 'Subject or Meeting_Id__c' : 'Event or Meeting__c'}`,
    );

const fieldName = apiName('field');
/** A field to read, or null to switch off a field a built-in default would read. */
const optionalField = fieldName.nullable().optional();
const flag = z.boolean({ error: 'expected true or false' }).optional();

export const recordKindSchema = z.enum(['opportunity', 'account', 'lead'], { error: 'expected "opportunity", "account" or "lead"' });

export const sObjectRuleSchema = z
  .strictObject({
    enabled: flag.meta({ description: 'Whether notifications of this type are mapped at all (default true)' }),
    recordIdFields: z
      .array(fieldName, { error: 'expected an array of field names' })
      .optional()
      .meta({ description: 'Fields holding Salesforce record ids, classified by key prefix (006 opportunity, 001 account, 00Q lead; others ignored)' }),
    opportunityIdField: optionalField.meta({ description: 'Field holding the opportunity id (wins over recordIdFields)' }),
    accountIdField: optionalField.meta({ description: 'Field holding the account id (wins over recordIdFields)' }),
    leadIdField: optionalField.meta({ description: 'Field holding the lead id (wins over recordIdFields)' }),
    useRecordIdAs: recordKindSchema.nullable().optional().meta({ description: "Use the record's own Id as this kind of id (Opportunity: opportunity)" }),
    momentumMeetingIdField: optionalField.meta({ description: 'Field holding a Momentum meeting id (an integer)' }),
    sourceIdField: optionalField.meta({ description: "Field holding the meeting's id in an external system (source.id)" }),
    sourceTypeField: optionalField.meta({ description: 'Field holding the external system name (source.type)' }),
    sourceType: z
      .string({ error: 'expected string' })
      .regex(/^[A-Z][A-Z0-9_]*$/, 'expected an upper-case source type such as GOOGLE_CALENDAR or ZOOM')
      .nullable()
      .optional()
      .meta({ description: 'Constant source.type when no field holds it (GOOGLE_CALENDAR, ZOOM, GONG…)' }),
    titleField: optionalField.meta({ description: 'Field for meetingDetails.title' }),
    startTimeField: optionalField.meta({ description: 'Field for meetingDetails.startTime (a date-time, not a date)' }),
    hostEmailField: optionalField.meta({ description: 'Field for meetingDetails.hostEmail (wins over lookupOwnerEmail)' }),
    lookupOwnerEmail: flag.meta({ description: "Look up OwnerId's User.Email as hostEmail (needs Salesforce credentials)" }),
    triggerSummary: flag.meta({ description: 'triggerSummary for remaps of this type (default REMAP_TRIGGER_SUMMARY)' }),
    triggerAiSignals: flag.meta({ description: 'triggerAiSignals for remaps of this type (default REMAP_TRIGGER_AI_SIGNALS)' }),
    action: z
      .enum(['remap', 'import'], { error: 'expected "remap" or "import"' })
      .optional()
      .meta({ description: 'remap (default): the record names a meeting Momentum has; import: the record is a recorded call Momentum never saw' }),
    meetingIdField: optionalField.meta({ description: 'import: field holding the meeting id in the recording system (required for import)' }),
    endTimeField: optionalField.meta({ description: 'import: field for the meeting end (a date-time)' }),
    durationSecondsField: optionalField.meta({
      description: 'import: field holding the duration in seconds (end = start + duration), instead of endTimeField',
    }),
    hostNameField: optionalField.meta({ description: "import: field for the host's name" }),
    recordingUrlField: optionalField.meta({ description: 'import: field holding the recording link' }),
    callUrlField: optionalField.meta({ description: 'import: field holding the call or conference link' }),
    attendeeEmailFields: z
      .array(fieldName, { error: 'expected an array of field names' })
      .optional()
      .meta({ description: "import: fields holding attendees' emails (one address each, or several separated by , or ;)" }),
    processImportedMeeting: flag.meta({ description: 'import: processImportedMeeting for imports of this type (default IMPORT_PROCESS_MEETINGS)' }),
  })
  .superRefine((rule, ctx) => {
    if (rule.action === 'import' && !rule.meetingIdField) {
      ctx.addIssue({ code: 'custom', path: ['meetingIdField'], message: 'required when action is "import": the meeting id in the recording system' });
    }
    if (rule.endTimeField && rule.durationSecondsField) {
      ctx.addIssue({ code: 'custom', path: ['durationSecondsField'], message: 'set either endTimeField or durationSecondsField, not both' });
    }
    // docs/protocols.md §1: source is {id, type}; half a source can never be sent.
    const hasType = Boolean(rule.sourceTypeField) || Boolean(rule.sourceType);
    if (rule.sourceTypeField && rule.sourceType) {
      ctx.addIssue({ code: 'custom', path: ['sourceType'], message: 'set either sourceTypeField or sourceType, not both' });
    }
    if (rule.sourceIdField && !hasType) {
      ctx.addIssue({ code: 'custom', path: ['sourceIdField'], message: 'needs sourceTypeField or a constant sourceType' });
    }
    if (!rule.sourceIdField && hasType) {
      ctx.addIssue({ code: 'custom', path: [rule.sourceType ? 'sourceType' : 'sourceTypeField'], message: 'needs sourceIdField' });
    }
  });

const idKey = z.string({ error: 'expected string' }).min(1, 'expected a non-empty key');

export const calendarRulesSchema = z.strictObject({
  enabled: flag.meta({ description: 'Whether calendar events are mapped at all (default true)' }),
  explicitIdKeys: z
    .strictObject({ opportunity: idKey.optional(), account: idKey.optional(), lead: idKey.optional() })
    .optional()
    .meta({ description: 'extendedProperties keys holding Salesforce ids (default sfOpportunityId, sfAccountId, sfLeadId)' }),
  triggerSummary: flag.meta({ description: 'triggerSummary for calendar remaps (default REMAP_TRIGGER_SUMMARY)' }),
  triggerAiSignals: flag.meta({ description: 'triggerAiSignals for calendar remaps (default REMAP_TRIGGER_AI_SIGNALS)' }),
  microsoftSourceType: z
    .string({ error: 'expected a Momentum source type such as OUTLOOK_CALENDAR' })
    .regex(/^[A-Z][A-Z0-9_]{0,63}$/, 'expected an upper-case Momentum source type such as OUTLOOK_CALENDAR')
    .optional()
    .meta({
      description: "Microsoft 365 remaps name source {type: this, id: the event's iCalUId}; unset, they carry meetingDetails (title, start, host) only",
    }),
});

const importFlags = z.strictObject({
  processImportedMeeting: flag.meta({ description: 'processImportedMeeting for imports from this source (default IMPORT_PROCESS_MEETINGS)' }),
});

export const recordingRulesSchema = z.strictObject({
  requireCrmMatch: flag.meta({ description: 'Import a recording only when its attendees match CRM records (default false: imported without ids)' }),
  zoom: importFlags.optional().meta({ description: 'Zoom cloud recordings' }),
  signed: importFlags.optional().meta({ description: 'Recordings posted to the signed route (POST /calendar/events, kind "recording")' }),
});

const days = (what: string) =>
  z
    .number({ error: 'expected a whole number of days' })
    .int('expected a whole number of days')
    .min(0, 'at least 0')
    .max(365, 'at most 365')
    .optional()
    .meta({ description: what });

export const matchingRulesSchema = z.strictObject({
  ambiguous: z.enum(['account-only', 'hold', 'newest'], { error: 'expected "account-only", "hold" or "newest"' }).optional().meta({
    description:
      'When candidates tie on every signal: account-only (default) sends the Account alone, hold sends nothing until an operator pins, newest takes the most recently modified',
  }),
  createdAfterDays: days('An opportunity created up to this many days after the meeting is a candidate (default 30)'),
  closedBeforeDays: days('An opportunity closed up to this many days before the meeting is a candidate (default 14)'),
  excludeAccountTypes: z
    .array(z.string().min(1).max(80), { error: 'expected an array of Account Type values' })
    .max(50)
    .optional()
    .meta({ description: 'Account Types never matched, e.g. ["Partner", "Reseller"] (default none)' }),
  partnerAccountTypes: z.array(z.string().min(1).max(80), { error: 'expected an array of Account Type values' }).max(50).optional().meta({
    description:
      'Account Types that lose a tie to any other Account (default ["Partner", "Reseller"]): a partner’s own deal is not the meeting’s when its customer’s deal fits as well',
  }),
  personalEmailContacts: flag.meta({
    description: 'A personal address (gmail.com…) that is exactly a Contact’s email matches it (default true); its domain never matches',
  }),
  opportunityTeams: flag.meta({
    description: 'Opportunity team members attending count as the owner attending (default false; needs Opportunity Teams in the org)',
  }),
});

export const mappingFileSchema = z.strictObject({
  $schema: z.string().optional().meta({ description: 'Ignored; lets editors attach a JSON schema' }),
  sObjects: z
    .record(apiName('sObject'), sObjectRuleSchema, { error: 'expected an object keyed by sObject type' })
    .optional()
    .meta({ description: 'Rules per sObject type; merged key by key over the built-in defaults for Event, Task and Opportunity' }),
  calendar: calendarRulesSchema.optional(),
  recordings: recordingRulesSchema.optional(),
  matching: matchingRulesSchema.optional().meta({ description: 'How meetings are matched to opportunities, Accounts and Leads (docs/calendars.md, matching)' }),
});

export type MappingFile = z.infer<typeof mappingFileSchema>;
export type SObjectRuleInput = z.infer<typeof sObjectRuleSchema>;
export type RecordKind = z.infer<typeof recordKindSchema>;

/** A resolved rule: defaults applied, nulls turned into "not read". */
export interface SObjectRule {
  enabled: boolean;
  recordIdFields: string[];
  opportunityIdField?: string;
  accountIdField?: string;
  leadIdField?: string;
  useRecordIdAs?: RecordKind;
  momentumMeetingIdField?: string;
  sourceIdField?: string;
  sourceTypeField?: string;
  sourceType?: string;
  titleField?: string;
  startTimeField?: string;
  hostEmailField?: string;
  lookupOwnerEmail: boolean;
  triggerSummary: boolean;
  triggerAiSignals: boolean;
  action: 'remap' | 'import';
  meetingIdField?: string;
  endTimeField?: string;
  durationSecondsField?: string;
  hostNameField?: string;
  recordingUrlField?: string;
  callUrlField?: string;
  attendeeEmailFields: string[];
  processImportedMeeting: boolean;
}

/** Imports of recordings (Zoom, the signed route): whether a CRM match is required, and processImportedMeeting per source. */
export interface RecordingRules {
  requireCrmMatch: boolean;
  processImportedMeeting: { zoom: boolean; signed: boolean };
}

export interface CalendarRules {
  enabled: boolean;
  explicitIdKeys: Record<RecordKind, string>;
  triggerSummary: boolean;
  triggerAiSignals: boolean;
  /** Momentum source type for Microsoft 365 remaps; undefined: they carry meetingDetails only. */
  microsoftSourceType?: string;
}

export interface MappingRules {
  sObjects: Record<string, SObjectRule>;
  calendar: CalendarRules;
  recordings: RecordingRules;
  matching: MatchingRules;
  /** A short hash of the mapping file's resolved rules: each match record names the rules that made it. */
  version: string;
}
