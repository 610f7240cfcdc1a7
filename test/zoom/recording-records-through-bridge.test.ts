import { expect, it } from 'vitest';

import { postCalendarEvent } from '../calendar/support/signed-events.ts';
import { outboundMessage } from '../salesforce/support/outbound-message-builder.ts';
import { postOutboundMessage } from '../salesforce/support/post-outbound-message.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { describeEachEngine, expectSettled, waitSettled } from '../support/stored-state.ts';
import { importsAt, mappingFile, startZoomBridge, storedEvents, storedJobs } from './support/zoom-bridge.ts';

/*
 * The other recording sources through the real startBridge wiring on both engines: a recording
 * record in Salesforce (a Gong call) sent by Outbound Message, and a recording posted to the
 * signed route; a fake Momentum receives the imports, and the stored events and jobs are read back.
 */

const cleanups = cleanupAfterEach();

const GONG_RULES = {
  sObjects: {
    Gong__Gong_Call__c: {
      action: 'import',
      meetingIdField: 'Gong__Call_ID__c',
      titleField: 'Gong__Title__c',
      startTimeField: 'Gong__Call_Start__c',
      durationSecondsField: 'Gong__Call_Duration_sec__c',
      hostEmailField: 'Gong__Primary_User_Email__c',
      recordingUrlField: 'Gong__Call_URL__c',
      attendeeEmailFields: ['Gong__Participants_Emails__c'],
      accountIdField: 'Gong__Primary_Account__c',
      opportunityIdField: 'Gong__Primary_Opportunity__c',
      processImportedMeeting: false,
    },
  },
};

// Two states of one recording differ by their end: the second is not imported again.
const signedRecording = (end: string) =>
  JSON.stringify({
    kind: 'recording',
    version: 1,
    id: 'rec-42',
    recordingUrl: 'https://recorder.example.net/r/42',
    callUrl: 'https://meet.example.net/j/42',
    title: 'Globex follow-up',
    start: '2026-03-03T10:00:00Z',
    end,
    host: { email: 'ana.rep@example.com', name: 'Ana Rep' },
    attendees: [{ email: 'gail@globex.com', name: 'Gail Buyer' }],
    salesforce: { opportunityId: '0068d0000101XyZ' },
  });

describeEachEngine('recording records in Salesforce and signed recording events through startBridge', (engine) => {
  it('when an Outbound Message carries a Gong call record mapped with action import, then Momentum receives the import with its ids and attendees', async () => {
    const { momentum, bridge, databaseUrl } = await startZoomBridge(engine, cleanups, { env: { MAPPING_FILE: mappingFile(GONG_RULES) } });
    const xml = outboundMessage({
      notifications: [
        {
          id: '04l8d0000001GonAAE',
          type: 'sf:Gong__Gong_Call__c',
          fields: {
            Id: 'a0B8d000001GongEAC',
            Gong__Call_ID__c: '8812345678901234567',
            Gong__Title__c: 'Globex | discovery',
            Gong__Call_Start__c: '2026-03-02T16:00:00.000Z',
            Gong__Call_Duration_sec__c: '1800.0',
            Gong__Primary_User_Email__c: 'ana.rep@example.com',
            Gong__Call_URL__c: 'https://app.gong.io/call?id=8812345678901234567',
            Gong__Participants_Emails__c: 'ana.rep@example.com; gail@globex.com',
            Gong__Primary_Account__c: '0018d0000101XyZ',
            Gong__Primary_Opportunity__c: '0068d0000101XyZAAU',
          },
        },
      ],
    });

    const answer = await postOutboundMessage(bridge.url, xml);

    expect(answer.status).toBe(200);
    const [request] = await momentum.waitFor(1, 15_000);
    expect(request?.path).toBe('/user-provided-meeting');
    expect(request?.body).toEqual({
      meeting: {
        id: '8812345678901234567',
        title: 'Globex | discovery',
        startTime: '2026-03-02T16:00:00.000Z',
        endTime: '2026-03-02T16:30:00.000Z',
        host: { email: 'ana.rep@example.com' },
        recordingUrl: 'https://app.gong.io/call?id=8812345678901234567',
        attendees: [
          { email: 'ana.rep@example.com', isInternal: true },
          { email: 'gail@globex.com', isInternal: false },
        ],
        salesforceAccountId: '0018d0000101XyZAAU',
        salesforceOpportunityId: '0068d0000101XyZAAU',
      },
      processImportedMeeting: false,
    });
    await waitSettled(databaseUrl);
    expect(await storedEvents(databaseUrl)).toMatchObject([{ source: 'salesforce', state: 'mapped' }]);
    const jobs = await expectSettled(databaseUrl);
    expect(jobs.map((job) => [job.kind, job.state])).toEqual([
      ['map-event', 'succeeded'],
      ['import', 'succeeded'],
    ]);
  });

  it('when a recording is posted to the signed route, then it is imported with its explicit ids, and once imported it is not imported again', async () => {
    const { momentum, bridge, databaseUrl } = await startZoomBridge(engine, cleanups);

    const first = await postCalendarEvent(bridge.url, signedRecording('2026-03-03T10:25:00Z'), { id: 'msg_rec_1' });
    await momentum.waitFor(1, 15_000);
    await waitSettled(databaseUrl);
    const second = await postCalendarEvent(bridge.url, signedRecording('2026-03-03T10:26:00Z'), { id: 'msg_rec_2' });
    await waitSettled(databaseUrl);

    expect([first.status, second.status]).toEqual([202, 202]);
    expect(importsAt(momentum)).toHaveLength(1);
    expect(importsAt(momentum)[0]?.body).toEqual({
      meeting: {
        id: 'rec-42',
        title: 'Globex follow-up',
        startTime: '2026-03-03T10:00:00Z',
        endTime: '2026-03-03T10:25:00Z',
        host: { email: 'ana.rep@example.com', name: 'Ana Rep' },
        recordingUrl: 'https://recorder.example.net/r/42',
        callUrl: 'https://meet.example.net/j/42',
        attendees: [{ email: 'gail@globex.com', name: 'Gail Buyer', isInternal: false }],
        salesforceOpportunityId: '0068d0000101XyZAAU',
      },
      processImportedMeeting: true,
    });
    expect(await storedEvents(databaseUrl)).toMatchObject([
      { source: 'recording', dedupe_key: 'recording:msg_rec_1', state: 'mapped' },
      { source: 'recording', dedupe_key: 'recording:msg_rec_2', state: 'mapped' },
    ]);
    expect((await storedJobs(databaseUrl)).map((job) => [job.kind, job.state])).toEqual([
      ['map-event', 'succeeded'],
      ['import', 'succeeded'],
      ['map-event', 'succeeded'],
      ['import', 'skipped'],
    ]);
    const jobs = await expectSettled(databaseUrl);
    expect(jobs.at(-1)).toMatchObject({ kind: 'import', state: 'skipped', reason: 'already imported' });
  });
});
