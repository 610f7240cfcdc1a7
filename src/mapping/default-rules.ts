import { createHash } from 'node:crypto';

import { DEFAULT_MATCHING } from '../matching/types.ts';
import type { MappingFile, MappingRules, SObjectRule, SObjectRuleInput } from './rules-schema.ts';

/**
 * Built-in rules, written in the file format so a MAPPING_FILE
 * entry for the same type is merged over them key by key.
 */
const activity: SObjectRuleInput = {
  // Event/Task: WhatId holds an Account or Opportunity, WhoId a Contact or Lead (docs/protocols.md §2).
  recordIdFields: ['WhatId', 'WhoId', 'AccountId'],
  titleField: 'Subject',
  lookupOwnerEmail: true,
};

export const BUILT_IN_SOBJECT_RULES: Readonly<Record<string, SObjectRuleInput>> = {
  Event: { ...activity, startTimeField: 'StartDateTime' },
  // Task.ActivityDate is a date (2026-07-11), not a meeting time: a Task gets no startTime.
  Task: { ...activity },
  // An Opportunity is not a meeting: without meeting fields named in the mapping it is skipped.
  Opportunity: { recordIdFields: ['AccountId'], useRecordIdAs: 'opportunity' },
};

export const DEFAULT_EXPLICIT_ID_KEYS = { opportunity: 'sfOpportunityId', account: 'sfAccountId', lead: 'sfLeadId' } as const;

export interface FlagDefaults {
  triggerSummary: boolean;
  triggerAiSignals: boolean;
  /** IMPORT_PROCESS_MEETINGS; true when not given. */
  processImportedMeeting?: boolean;
}

const orUndefined = <T>(value: T | null | undefined): T | undefined => value ?? undefined;

function resolveSObjectRule(input: SObjectRuleInput, flags: FlagDefaults): SObjectRule {
  return {
    enabled: input.enabled ?? true,
    recordIdFields: input.recordIdFields ?? [],
    opportunityIdField: orUndefined(input.opportunityIdField),
    accountIdField: orUndefined(input.accountIdField),
    leadIdField: orUndefined(input.leadIdField),
    useRecordIdAs: orUndefined(input.useRecordIdAs),
    momentumMeetingIdField: orUndefined(input.momentumMeetingIdField),
    sourceIdField: orUndefined(input.sourceIdField),
    sourceTypeField: orUndefined(input.sourceTypeField),
    sourceType: orUndefined(input.sourceType),
    titleField: orUndefined(input.titleField),
    startTimeField: orUndefined(input.startTimeField),
    hostEmailField: orUndefined(input.hostEmailField),
    lookupOwnerEmail: input.lookupOwnerEmail ?? false,
    triggerSummary: input.triggerSummary ?? flags.triggerSummary,
    triggerAiSignals: input.triggerAiSignals ?? flags.triggerAiSignals,
    action: input.action ?? 'remap',
    meetingIdField: orUndefined(input.meetingIdField),
    endTimeField: orUndefined(input.endTimeField),
    durationSecondsField: orUndefined(input.durationSecondsField),
    hostNameField: orUndefined(input.hostNameField),
    recordingUrlField: orUndefined(input.recordingUrlField),
    callUrlField: orUndefined(input.callUrlField),
    attendeeEmailFields: input.attendeeEmailFields ?? [],
    processImportedMeeting: input.processImportedMeeting ?? flags.processImportedMeeting ?? true,
  };
}

/** Applies the built-in defaults and the REMAP_TRIGGER_* flags to a validated mapping file. */
export function resolveRules(file: MappingFile, flags: FlagDefaults): MappingRules {
  const inputs: Record<string, SObjectRuleInput> = { ...BUILT_IN_SOBJECT_RULES };
  for (const [type, rule] of Object.entries(file.sObjects ?? {})) {
    inputs[type] = { ...BUILT_IN_SOBJECT_RULES[type], ...rule };
  }
  const sObjects: Record<string, SObjectRule> = {};
  for (const [type, input] of Object.entries(inputs)) sObjects[type] = resolveSObjectRule(input, flags);

  const calendar = file.calendar ?? {};
  const recordings = file.recordings ?? {};
  const matching = file.matching ?? {};
  const rules: Omit<MappingRules, 'version'> = {
    sObjects,
    calendar: {
      enabled: calendar.enabled ?? true,
      explicitIdKeys: { ...DEFAULT_EXPLICIT_ID_KEYS, ...calendar.explicitIdKeys },
      triggerSummary: calendar.triggerSummary ?? flags.triggerSummary,
      triggerAiSignals: calendar.triggerAiSignals ?? flags.triggerAiSignals,
      ...(calendar.microsoftSourceType === undefined ? {} : { microsoftSourceType: calendar.microsoftSourceType }),
    },
    recordings: {
      requireCrmMatch: recordings.requireCrmMatch ?? false,
      processImportedMeeting: {
        zoom: recordings.zoom?.processImportedMeeting ?? flags.processImportedMeeting ?? true,
        signed: recordings.signed?.processImportedMeeting ?? flags.processImportedMeeting ?? true,
      },
    },
    matching: {
      ambiguous: matching.ambiguous ?? DEFAULT_MATCHING.ambiguous,
      createdAfterDays: matching.createdAfterDays ?? DEFAULT_MATCHING.createdAfterDays,
      closedBeforeDays: matching.closedBeforeDays ?? DEFAULT_MATCHING.closedBeforeDays,
      excludeAccountTypes: matching.excludeAccountTypes ?? DEFAULT_MATCHING.excludeAccountTypes,
      partnerAccountTypes: matching.partnerAccountTypes ?? DEFAULT_MATCHING.partnerAccountTypes,
      personalEmailContacts: matching.personalEmailContacts ?? DEFAULT_MATCHING.personalEmailContacts,
      opportunityTeams: matching.opportunityTeams ?? DEFAULT_MATCHING.opportunityTeams,
      rematchDays: matching.rematchDays ?? DEFAULT_MATCHING.rematchDays,
    },
  };
  return { ...rules, version: createHash('sha256').update(JSON.stringify(rules)).digest('hex').slice(0, 12) };
}

/** The rules used when MAPPING_FILE is unset. */
export function builtInRules(flags: FlagDefaults): MappingRules {
  return resolveRules({}, flags);
}
