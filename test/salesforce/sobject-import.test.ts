import { describe, expect, it } from 'vitest';

import { resolveRules } from '../../src/mapping/default-rules.ts';
import { MappingRulesError, parseRules } from '../../src/mapping/load-rules.ts';
import { mapSObject } from '../../src/salesforce/map-sobject.ts';

const flags = { triggerSummary: false, triggerAiSignals: false, processImportedMeeting: true };
const config = { REMAP_TRIGGER_SUMMARY: false, REMAP_TRIGGER_AI_SIGNALS: false, IMPORT_PROCESS_MEETINGS: true };
const rules = resolveRules(
  {
    sObjects: {
      Aircall_Call__c: {
        action: 'import',
        meetingIdField: 'Call_Id__c',
        titleField: 'Subject__c',
        startTimeField: 'Started_At__c',
        endTimeField: 'Ended_At__c',
        hostEmailField: 'Agent_Email__c',
        hostNameField: 'Agent_Name__c',
        recordingUrlField: 'Recording__c',
        attendeeEmailFields: ['Contact_Email__c'],
        recordIdFields: ['Related_To__c'],
      },
    },
  },
  flags,
);
const call = (fields: Record<string, string>) =>
  mapSObject(
    rules,
    { notificationId: 'n-1', sObjectType: 'Aircall_Call__c', fields: { Id: 'a0C8d000001CallEAC', ...fields } },
    { ownerEmails: new Map(), internalDomains: ['example.com'] },
  );

describe('recording records mapped with action import', () => {
  it('when a call record has its fields, then it becomes an import with the record id classified by prefix', () => {
    expect(
      call({
        Call_Id__c: '1234567',
        Subject__c: 'Call with Globex',
        Started_At__c: '2026-03-02T16:00:00.000Z',
        Ended_At__c: '2026-03-02T16:12:00.000Z',
        Agent_Email__c: 'ana.rep@example.com',
        Agent_Name__c: 'Ana Rep',
        Recording__c: 'https://assets.aircall.io/calls/1234567/recording',
        Contact_Email__c: 'gail@globex.com',
        Related_To__c: '0068d0000101XyZ',
      }),
    ).toEqual({
      kind: 'import',
      rule: 'sobject:Aircall_Call__c',
      request: {
        meeting: {
          id: '1234567',
          title: 'Call with Globex',
          startTime: '2026-03-02T16:00:00.000Z',
          endTime: '2026-03-02T16:12:00.000Z',
          host: { email: 'ana.rep@example.com', name: 'Ana Rep' },
          recordingUrl: 'https://assets.aircall.io/calls/1234567/recording',
          attendees: [{ email: 'gail@globex.com', isInternal: false }],
          salesforceOpportunityId: '0068d0000101XyZAAU',
        },
        processImportedMeeting: true,
      },
    });
  });

  it.each([
    [{ Call_Id__c: '' }, /Call_Id__c is empty/],
    [{ Call_Id__c: '1', Started_At__c: '2026-03-02' }, /Started_At__c "2026-03-02" is not a date-time/],
    [{ Call_Id__c: '1', Recording__c: 'not a link' }, /^Recording__c "not a link" is not an absolute http or https URL/],
    [{ Call_Id__c: '1', Recording__c: 'javascript:alert(1)' }, /^Recording__c "javascript:alert\(1\)" is not an absolute http or https URL/],
    [{ Call_Id__c: '1', Recording__c: 'data:text/html,<b>x</b>' }, /^Recording__c "data:text\/html,<b>x<\/b>" is not an absolute http or https URL/],
  ])('when the record is %j, then it is skipped naming the field', (fields, reason) => {
    const outcome = call(fields);
    expect(outcome.kind).toBe('skipped');
    expect(outcome.kind === 'skipped' ? outcome.reason : '').toMatch(reason);
  });

  it('when the mapping file asks for an import without meetingIdField, or both an end and a duration, then the start stops naming the JSON path', () => {
    const file = JSON.stringify({ sObjects: { Gong__Gong_Call__c: { action: 'import', endTimeField: 'End__c', durationSecondsField: 'Seconds__c' } } });
    expect(() => parseRules(file, 'mapping.json', config)).toThrow(MappingRulesError);
    try {
      parseRules(file, 'mapping.json', config);
    } catch (error) {
      const text = (error as Error).message;
      expect(text).toMatch(/sObjects\.Gong__Gong_Call__c\.meetingIdField/);
      expect(text).toMatch(/sObjects\.Gong__Gong_Call__c\.durationSecondsField/);
    }
    expect(() => parseRules(JSON.stringify({ recordings: { requireCrmMatch: 'yes' } }), 'mapping.json', config)).toThrow(/recordings\.requireCrmMatch/);
  });

  it('when a duration no date can hold arrives ("1e13" seconds), then the record is skipped with why, not retried as an exception', () => {
    const byDuration = resolveRules(
      {
        sObjects: {
          Dialer_Call__c: {
            action: 'import',
            meetingIdField: 'Call_Id__c',
            startTimeField: 'Started_At__c',
            durationSecondsField: 'Duration__c',
            recordingUrlField: 'Recording__c',
          },
        },
      },
      flags,
    );

    const outcome = mapSObject(
      byDuration,
      {
        notificationId: 'n-2',
        sObjectType: 'Dialer_Call__c',
        fields: {
          Id: 'a0C8d000001CallEAC',
          Call_Id__c: '1',
          Started_At__c: '2026-03-02T16:00:00.000Z',
          Duration__c: '1e13',
          Recording__c: 'https://example.com/r',
        },
      },
      { ownerEmails: new Map(), internalDomains: [] },
    );

    expect(outcome).toMatchObject({ kind: 'skipped', reason: 'Duration__c "1e13" is not a number of seconds' });
  });
});
