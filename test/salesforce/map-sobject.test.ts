import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { builtInRules } from '../../src/mapping/default-rules.ts';
import { parseRules } from '../../src/mapping/load-rules.ts';
import { remapCoalesceKey } from '../../src/momentum/remap-coalesce-key.ts';
import { remapRequestSchema } from '../../src/momentum/schemas.ts';
import { mapSObject, ownerIdsToLookUp, type SObjectNotification } from '../../src/salesforce/map-sobject.ts';
import { parseOutboundMessage } from '../../src/salesforce/soap-parser.ts';

const defaults = builtInRules({ triggerSummary: false, triggerAiSignals: false });
const OWNER = '0058d0000101XyZAAU';

function fixtureNotifications(name: string): SObjectNotification[] {
  const message = parseOutboundMessage(readFileSync(`test/fixtures/salesforce/${name}`, 'utf8'));
  return message.notifications.map((n) => ({ notificationId: n.id, sObjectType: n.sObjectType, fields: n.fields }));
}

function firstFixture(name: string): SObjectNotification {
  const [first] = fixtureNotifications(name);
  if (first === undefined) throw new Error(`${name} has no notification`);
  return first;
}

const notification = (sObjectType: string, fields: Record<string, string>): SObjectNotification => ({
  notificationId: '04l8d0000199XyZAAU',
  sObjectType,
  fields,
});

function rulesFrom(file: unknown, flags = { REMAP_TRIGGER_SUMMARY: false, REMAP_TRIGGER_AI_SIGNALS: false }) {
  return parseRules(JSON.stringify(file), 'test-mapping.json', flags);
}

describe('mapSObject', () => {
  it('when event-opportunity.xml is mapped with the defaults, then the remap body is exactly the documented one and the Contact is not forwarded', () => {
    const outcome = mapSObject(defaults, firstFixture('event-opportunity.xml'));

    expect(outcome.kind).toBe('remap');
    if (outcome.kind !== 'remap') return;
    expect(JSON.stringify(outcome.request)).toBe(
      '{"salesforceRecords":{"opportunityId":"0068d0000101XyZAAU","accountId":"0018d0000101XyZAAU"},' +
        '"meetingDetails":{"title":"Pricing review with Globex","startTime":"2026-03-02T16:00:00.000Z"}}',
    );
    expect(JSON.stringify(outcome.request)).not.toContain('0038d0000101XyZAAU');
    expect(outcome.flags).toEqual({ triggerSummary: false, triggerAiSignals: false });
    expect(outcome.coalesceKey).toBe(remapCoalesceKey(outcome.request));
    expect(remapRequestSchema.safeParse(outcome.request).success).toBe(true);
  });

  it("when the owner's email was looked up, then it is added as hostEmail", () => {
    const event = firstFixture('event-opportunity.xml');

    const wanted = ownerIdsToLookUp(defaults, event);
    const outcome = mapSObject(defaults, event, { ownerEmails: new Map([[OWNER, 'ae@example.com']]) });

    expect(wanted).toEqual([OWNER]);
    expect(outcome.kind === 'remap' && outcome.request.meetingDetails).toEqual({
      title: 'Pricing review with Globex',
      startTime: '2026-03-02T16:00:00.000Z',
      hostEmail: 'ae@example.com',
    });
  });

  it('when the Tasks of task-leads-batch.xml are mapped, then each forwards its Lead and title and no startTime from ActivityDate', () => {
    const outcomes = fixtureNotifications('task-leads-batch.xml').map((task) => mapSObject(defaults, task));

    expect(outcomes.map((outcome) => outcome.kind === 'remap' && outcome.request)).toEqual([
      { salesforceRecords: { leadId: '00Q8d0000111XyZEAU' }, meetingDetails: { title: 'Intro call 1' } },
      { salesforceRecords: { leadId: '00Q8d0000112XyZEAU' }, meetingDetails: { title: 'Intro call 2' } },
      { salesforceRecords: { leadId: '00Q8d0000113XyZEAU' }, meetingDetails: { title: 'Intro call 3' } },
    ]);
  });

  it('when opportunity.xml is mapped with the defaults, then it is skipped because nothing names a meeting', () => {
    const outcome = mapSObject(defaults, firstFixture('opportunity.xml'));

    expect(outcome).toEqual({
      kind: 'skipped',
      reason: 'no meeting identity for Opportunity: the mapping names no meeting fields (momentumMeetingIdField, sourceIdField, titleField or startTimeField)',
    });
    expect(ownerIdsToLookUp(defaults, firstFixture('opportunity.xml'))).toEqual([]);
  });

  it('when the mapping names a Momentum meeting id field for Opportunity, then its own Id, its AccountId and that meeting id are sent', () => {
    const rules = rulesFrom({ sObjects: { Opportunity: { momentumMeetingIdField: 'Momentum_Meeting_Id__c' } } });
    const opportunity = firstFixture('opportunity.xml');

    const outcome = mapSObject(rules, { ...opportunity, fields: { ...opportunity.fields, Momentum_Meeting_Id__c: '98765.0' } });

    expect(outcome.kind === 'remap' && outcome.request).toEqual({
      salesforceRecords: { opportunityId: '0068d0000120XyZAAU', accountId: '0018d0000120XyZAAU' },
      meetingDetails: { momentumMeetingId: 98765 },
    });
  });

  it('when a custom Meeting__c is mapped by a mapping file, then its source, explicit ids, details and flags are used', () => {
    const rules = rulesFrom(
      {
        sObjects: {
          Meeting__c: {
            opportunityIdField: 'Opportunity__c',
            recordIdFields: ['Related_To__c'],
            sourceIdField: 'Zoom_Meeting_Id__c',
            sourceType: 'ZOOM',
            titleField: 'Name',
            startTimeField: 'Start__c',
            hostEmailField: 'Host_Email__c',
            triggerAiSignals: false,
          },
        },
      },
      { REMAP_TRIGGER_SUMMARY: true, REMAP_TRIGGER_AI_SIGNALS: true },
    );
    const meeting = notification('Meeting__c', {
      Id: 'a018d0000001XyZAAU',
      Name: 'QBR – Société Générale',
      Opportunity__c: '0068d0000101XyZ',
      Related_To__c: '0018d0000101XyZ',
      Zoom_Meeting_Id__c: '81234567890',
      Start__c: '2026-04-01T09:30:00.000Z',
      Host_Email__c: 'host@example.com',
      OwnerId: OWNER,
    });

    const outcome = mapSObject(rules, meeting);

    expect(outcome).toEqual({
      kind: 'remap',
      request: {
        source: { id: '81234567890', type: 'ZOOM' },
        salesforceRecords: { opportunityId: '0068d0000101XyZAAU', accountId: '0018d0000101XyZAAU' },
        meetingDetails: { title: 'QBR – Société Générale', startTime: '2026-04-01T09:30:00.000Z', hostEmail: 'host@example.com' },
      },
      flags: { triggerSummary: true, triggerAiSignals: false },
      coalesceKey: 'source:ZOOM:81234567890',
    });
    expect(ownerIdsToLookUp(rules, meeting)).toEqual([]);
  });

  it('when ids arrive in 15-character form, then they are forwarded in 18-character form', () => {
    const outcome = mapSObject(defaults, notification('Event', { WhatId: '0068d0000101XyZ', AccountId: '0018d0000101XyZ', Subject: 'Demo' }));

    expect(outcome.kind === 'remap' && outcome.request.salesforceRecords).toEqual({ opportunityId: '0068d0000101XyZAAU', accountId: '0018d0000101XyZAAU' });
  });

  it('when a type has no mapping, then it is skipped with that reason', () => {
    expect(mapSObject(defaults, notification('Case', { Id: '5008d0000001XyZAAU', Subject: 'Help' }))).toEqual({
      kind: 'skipped',
      reason: 'no mapping for sObject type Case',
    });
  });

  it('when a type is disabled in the mapping file, then it is skipped and no owner is looked up', () => {
    const rules = rulesFrom({ sObjects: { Task: { enabled: false } } });
    const task = firstFixture('task-leads-batch.xml');

    expect(mapSObject(rules, task)).toEqual({ kind: 'skipped', reason: 'mapping for sObject type Task is disabled' });
    expect(ownerIdsToLookUp(rules, task)).toEqual([]);
  });

  it('when the record was deleted before delivery (no fields), then it is skipped', () => {
    expect(mapSObject(defaults, notification('Event', {}))).toEqual({
      kind: 'skipped',
      reason: 'Event has no field data (deleted before delivery, or the Outbound Message sends no fields)',
    });
  });

  it('when the only id is a Contact, then it is skipped saying which fields were read and why the Contact does not count', () => {
    const outcome = mapSObject(defaults, notification('Event', { WhoId: '0038d0000101XyZAAU', WhatId: 'not-an-id', Subject: 'Call' }));

    expect(outcome).toEqual({
      kind: 'skipped',
      reason:
        'no Salesforce opportunity, account or lead id in WhatId, WhoId, AccountId; WhatId "not-an-id" is not a Salesforce id; ' +
        'WhoId 0038d0000101XyZAAU is not an opportunity (006), account (001) or lead (00Q) id',
    });
  });

  it('when an Event has ids but no Subject or StartDateTime, then it is skipped for lack of a meeting identity', () => {
    const outcome = mapSObject(defaults, notification('Event', { WhatId: '0068d0000101XyZAAU', OwnerId: OWNER }));

    expect(outcome).toEqual({ kind: 'skipped', reason: 'no meeting identity for Event: Subject, StartDateTime are empty' });
  });

  it('when the start time field holds a date rather than a date-time, then it is skipped naming the field', () => {
    const rules = rulesFrom({ sObjects: { Task: { startTimeField: 'ActivityDate' } } });

    const outcome = mapSObject(rules, firstFixture('task-leads-batch.xml'));

    expect(outcome).toEqual({
      kind: 'skipped',
      reason: 'ActivityDate "2026-03-03" is not usable: expected an ISO 8601 date-time with Z or an offset',
    });
  });

  it('when an explicit id field holds an id of another object, then it is not forwarded as that kind', () => {
    const rules = rulesFrom({ sObjects: { Meeting__c: { opportunityIdField: 'Opportunity__c', accountIdField: 'Account__c', titleField: 'Name' } } });

    const outcome = mapSObject(rules, notification('Meeting__c', { Opportunity__c: '0018d0000101XyZAAU', Account__c: '0018d0000101XyZAAU', Name: 'x' }));

    expect(outcome.kind === 'remap' && outcome.request.salesforceRecords).toEqual({ accountId: '0018d0000101XyZAAU' });
  });

  it('when the owner is a queue rather than a User, then no lookup is asked for', () => {
    const task = notification('Task', { WhoId: '00Q8d0000111XyZEAU', Subject: 'Follow up', OwnerId: '00G8d0000001XyZAAU' });

    expect(ownerIdsToLookUp(defaults, task)).toEqual([]);
  });

  it('when a source type field is empty, then the source is not sent but the meeting details still are', () => {
    const rules = rulesFrom({
      sObjects: { Call__c: { leadIdField: 'Lead__c', sourceIdField: 'Call_Id__c', sourceTypeField: 'System__c', titleField: 'Topic__c' } },
    });

    const outcome = mapSObject(rules, notification('Call__c', { Lead__c: '00Q8d0000111XyZEAU', Call_Id__c: 'c-1', Topic__c: 'Discovery' }));

    expect(outcome.kind === 'remap' && outcome.request).toEqual({
      salesforceRecords: { leadId: '00Q8d0000111XyZEAU' },
      meetingDetails: { title: 'Discovery' },
    });
  });
});
