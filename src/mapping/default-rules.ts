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
  return {
    sObjects,
    calendar: {
      enabled: calendar.enabled ?? true,
      explicitIdKeys: { ...DEFAULT_EXPLICIT_ID_KEYS, ...calendar.explicitIdKeys },
      triggerSummary: calendar.triggerSummary ?? flags.triggerSummary,
      triggerAiSignals: calendar.triggerAiSignals ?? flags.triggerAiSignals,
      ...(calendar.microsoftSourceType === undefined ? {} : { microsoftSourceType: calendar.microsoftSourceType }),
    },
  };
}

/** The rules used when MAPPING_FILE is unset. */
export function builtInRules(flags: FlagDefaults): MappingRules {
  return resolveRules({}, flags);
}
