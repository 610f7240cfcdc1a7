import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { loadRules, MappingRulesError } from '../../src/mapping/load-rules.ts';

const flagsOff = { REMAP_TRIGGER_SUMMARY: false, REMAP_TRIGGER_AI_SIGNALS: false };

function writeMapping(content: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), 'mapping-')), 'mapping.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

function problemsOf(content: unknown): string[] {
  const file = writeMapping(content);
  try {
    loadRules({ MAPPING_FILE: file, ...flagsOff });
  } catch (error) {
    expect(error).toBeInstanceOf(MappingRulesError);
    expect((error as Error).message).toContain(file);
    return (error as MappingRulesError).problems;
  }
  throw new Error('expected the mapping file to be refused');
}

describe('loadRules', () => {
  it('when MAPPING_FILE is unset, then the built-in Event, Task and Opportunity rules apply', () => {
    const rules = loadRules({ MAPPING_FILE: undefined, ...flagsOff });

    expect(Object.keys(rules.sObjects).sort()).toEqual(['Event', 'Opportunity', 'Task']);
    expect(rules.sObjects.Event).toMatchObject({
      enabled: true,
      recordIdFields: ['WhatId', 'WhoId', 'AccountId'],
      titleField: 'Subject',
      startTimeField: 'StartDateTime',
      lookupOwnerEmail: true,
      triggerSummary: false,
      triggerAiSignals: false,
    });
    // Task.ActivityDate is a date, not a meeting time: no startTime field.
    expect(rules.sObjects.Task).toMatchObject({ recordIdFields: ['WhatId', 'WhoId', 'AccountId'], titleField: 'Subject', lookupOwnerEmail: true });
    expect(rules.sObjects.Task?.startTimeField).toBeUndefined();
    expect(rules.sObjects.Opportunity).toMatchObject({ useRecordIdAs: 'opportunity', recordIdFields: ['AccountId'], lookupOwnerEmail: false });
    expect(rules.sObjects.Opportunity?.titleField).toBeUndefined();
    expect(rules.calendar).toEqual({
      enabled: true,
      explicitIdKeys: { opportunity: 'sfOpportunityId', account: 'sfAccountId', lead: 'sfLeadId' },
      triggerSummary: false,
      triggerAiSignals: false,
    });
  });

  it('when REMAP_TRIGGER_SUMMARY and REMAP_TRIGGER_AI_SIGNALS are true, then every rule without its own flags takes them', () => {
    const file = writeMapping({ sObjects: { Task: { triggerAiSignals: false } } });

    const rules = loadRules({ MAPPING_FILE: file, REMAP_TRIGGER_SUMMARY: true, REMAP_TRIGGER_AI_SIGNALS: true });

    expect(rules.sObjects.Event).toMatchObject({ triggerSummary: true, triggerAiSignals: true });
    expect(rules.sObjects.Task).toMatchObject({ triggerSummary: true, triggerAiSignals: false });
    expect(rules.calendar).toMatchObject({ triggerSummary: true, triggerAiSignals: true });
  });

  it('when the example file from deploy/ is loaded, then it is valid and merged over the built-in rules', () => {
    const rules = loadRules({ MAPPING_FILE: 'deploy/mapping.example.json', ...flagsOff });

    expect(rules.sObjects.Task).toMatchObject({ recordIdFields: ['WhatId', 'WhoId'], titleField: 'Subject', lookupOwnerEmail: true });
    expect(rules.sObjects.Task?.startTimeField).toBeUndefined();
    expect(rules.sObjects.Opportunity).toMatchObject({
      useRecordIdAs: 'opportunity',
      accountIdField: 'AccountId',
      momentumMeetingIdField: 'Momentum_Meeting_Id__c',
    });
    expect(rules.sObjects.Meeting__c).toMatchObject({
      enabled: true,
      opportunityIdField: 'Opportunity__c',
      sourceIdField: 'Zoom_Meeting_Id__c',
      sourceType: 'ZOOM',
      lookupOwnerEmail: false,
      triggerSummary: true,
      triggerAiSignals: true,
    });
    expect(rules.sObjects.Call_Log__c).toMatchObject({ sourceTypeField: 'Call_System__c', triggerSummary: false });
    expect(rules.sObjects.Case?.enabled).toBe(false);
  });

  it('when a field name has the wrong type, then the error names its path and what was expected', () => {
    expect(problemsOf({ sObjects: { Event: { titleField: 42 } } })).toEqual(['sObjects.Event.titleField: expected string, got number 42']);
  });

  it('when a key is misspelt, then the error names the unknown key', () => {
    expect(problemsOf({ sObjects: { Event: { titelField: 'Subject' } } })).toEqual(['sObjects.Event.titelField: unknown key (misspelt?)']);
    expect(problemsOf({ sObject: {} })).toEqual(['sObject: unknown key (misspelt?)']);
  });

  it('when several things are wrong, then every problem is listed with its path', () => {
    const problems = problemsOf({
      sObjects: {
        'My-Object': {},
        Meeting__c: { recordIdFields: 'Account__c', useRecordIdAs: 'contact', startTimeField: 'Start Time' },
      },
      calendar: { explicitIdKeys: { opportunity: 7 } },
    });

    expect(problems).toEqual(
      expect.arrayContaining([
        'sObjects.My-Object: expected a Salesforce sObject API name such as Event or Meeting__c',
        'sObjects.Meeting__c.recordIdFields: expected array, got string "Account__c"',
        'sObjects.Meeting__c.useRecordIdAs: expected "opportunity", "account" or "lead"',
        'sObjects.Meeting__c.startTimeField: expected a Salesforce field API name such as Subject or Meeting_Id__c',
        'calendar.explicitIdKeys.opportunity: expected string, got number 7',
      ]),
    );
    expect(problems).toHaveLength(5);
  });

  it('when a source id has no source type, or both kinds of source type are set, then the rule is refused', () => {
    expect(problemsOf({ sObjects: { Meeting__c: { sourceIdField: 'Zoom_Id__c' } } })).toEqual([
      'sObjects.Meeting__c.sourceIdField: needs sourceTypeField or a constant sourceType',
    ]);
    expect(problemsOf({ sObjects: { Meeting__c: { sourceIdField: 'Zoom_Id__c', sourceType: 'ZOOM', sourceTypeField: 'System__c' } } })).toEqual([
      'sObjects.Meeting__c.sourceType: set either sourceTypeField or sourceType, not both',
    ]);
    expect(problemsOf({ sObjects: { Meeting__c: { sourceType: 'zoom' } } })).toEqual([
      'sObjects.Meeting__c.sourceType: expected an upper-case source type such as GOOGLE_CALENDAR or ZOOM',
      'sObjects.Meeting__c.sourceType: needs sourceIdField',
    ]);
  });

  it('when the file is not JSON, or not an object, then the error says so', () => {
    expect(problemsOf('{ "sObjects": ')[0]).toMatch(/^not valid JSON: /);
    expect(problemsOf([])).toEqual(['(top level): expected object, got an array']);
  });

  it('when the file does not exist, then the error names the file and the cause', () => {
    const missing = join(tmpdir(), 'no-such-dir-for-mapping', 'mapping.json');

    expect(() => loadRules({ MAPPING_FILE: missing, ...flagsOff })).toThrow(/invalid mapping file .*mapping\.json:\n {2}cannot read MAPPING_FILE: ENOENT/);
  });
});
