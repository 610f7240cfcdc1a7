import { expect, it } from 'vitest';

import { parseOutboundMessage } from '../../src/salesforce/soap-parser.ts';
import { storedNotifications } from '../../src/salesforce/stored-notification.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { describeEachEngine, expectSettled, queryRows } from '../support/stored-state.ts';
import { EVENT_XML, FIXTURE_REMAP, MEETING, NO_FLAGS, NOTIFICATION_ID, ORG_ID, RECORDING, startPreviewBridge } from './support/preview-bridge.ts';

/*
 * POST /admin/mapping/preview through the whole bridge, on both engines: what a payload or a
 * stored event maps to under the rules in force and a proposed mapping file. A preview stores
 * nothing, queues nothing, logs no admin change and sends nothing to Momentum. Refusals are in
 * mapping-preview-refusals.test.ts.
 */

const cleanups = cleanupAfterEach();

describeEachEngine('POST /admin/mapping/preview', (engine) => {
  it('when the Event fixture is previewed, then it is the documented remap, and nothing is stored, logged as a change or sent to Momentum', async () => {
    const h = await startPreviewBridge(engine, cleanups);

    const response = await h.preview({ source: 'salesforce', payload: EVENT_XML });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      source: 'salesforce',
      results: [{ notificationId: NOTIFICATION_ID, outcome: 'remap', request: FIXTURE_REMAP, flags: NO_FLAGS, rule: 'sobject:Event' }],
    });
    expect(await h.counts()).toEqual({ events: 0, jobs: 0 });
    expect(h.adminChanges()).toEqual([]);
    expect(h.momentum.requests).toEqual([]);
  });

  it('when a proposed mapping disables Event, then the proposed results show it skipped beside the remap of the rules in force', async () => {
    const h = await startPreviewBridge(engine, cleanups);

    const response = await h.preview({ source: 'salesforce', payload: EVENT_XML, mapping: { sObjects: { Event: { enabled: false } } } });

    expect(response.status).toBe(200);
    expect(response.body.results).toEqual([expect.objectContaining({ notificationId: NOTIFICATION_ID, outcome: 'remap', request: FIXTURE_REMAP })]);
    expect(response.body.proposed).toEqual({
      results: [{ notificationId: NOTIFICATION_ID, outcome: 'skipped', reason: 'mapping for sObject type Event is disabled', rule: 'none' }],
    });
    expect(await h.counts()).toEqual({ events: 0, jobs: 0 });
    expect(h.momentum.requests).toEqual([]);
  });

  it('when a signed calendar body links a Salesforce opportunity, then it previews as a remap by the salesforce_link rule', async () => {
    const h = await startPreviewBridge(engine, cleanups);

    const response = await h.preview({ source: 'calendar', payload: MEETING });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      source: 'calendar',
      results: [
        {
          outcome: 'remap',
          request: {
            source: { type: 'MS_TEAMS', id: MEETING.id },
            salesforceRecords: { opportunityId: '0068d0000101XyZAAU' },
            meetingDetails: { title: MEETING.title, startTime: MEETING.start, hostEmail: 'ann.seller@acme.test' },
          },
          flags: NO_FLAGS,
          rule: 'salesforce_link',
          // The match record the mapping would store, as the delivery's page shows it.
          match: expect.objectContaining({ outcome: 'matched', rule: 'salesforce_link', records: { opportunityId: '0068d0000101XyZAAU' } }),
        },
      ],
    });
    expect(await h.counts()).toEqual({ events: 0, jobs: 0 });
    expect(h.momentum.requests).toEqual([]);
  });

  it('when a signed recording body is previewed, then it is an import with the explicit opportunity', async () => {
    const h = await startPreviewBridge(engine, cleanups);

    const response = await h.preview({ source: 'calendar', payload: RECORDING });

    expect(response.status).toBe(200);
    expect(response.body.source).toBe('recording');
    expect(response.body.results).toEqual([
      {
        outcome: 'import',
        request: {
          meeting: expect.objectContaining({
            id: RECORDING.id,
            recordingUrl: RECORDING.recordingUrl,
            host: { email: 'ann.seller@acme.test', name: 'Ann Seller' },
            salesforceOpportunityId: '0068d0000101XyZAAU',
          }),
          processImportedMeeting: true,
        },
        rule: 'explicit_ids',
        match: expect.objectContaining({ outcome: 'matched', rule: 'explicit_ids' }),
      },
    ]);
    expect(await h.counts()).toEqual({ events: 0, jobs: 0 });
    expect(h.momentum.requests).toEqual([]);
  });

  it('when a stored event is previewed by id, then its stored notification maps under both rule sets and nothing is added', async () => {
    const h = await startPreviewBridge(engine, cleanups);
    const store = await h.bridge.store();
    // Stored as the receiver stores it, without its mapping job, so the worker never maps it.
    const { created } = await store.ingest(
      {
        source: 'salesforce',
        senderId: ORG_ID,
        rawPayload: EVENT_XML,
        events: storedNotifications(parseOutboundMessage(EVENT_XML)).map((parsedPayload) => ({
          dedupeKey: `salesforce:${parsedPayload.notificationId}`,
          parsedPayload,
        })),
      },
      () => [],
    );

    const response = await h.preview({ eventId: created[0]!.id, mapping: { sObjects: { Event: { triggerSummary: true } } } });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      source: 'salesforce',
      results: [{ notificationId: NOTIFICATION_ID, outcome: 'remap', request: FIXTURE_REMAP, flags: NO_FLAGS, rule: 'sobject:Event' }],
      proposed: {
        results: [
          { notificationId: NOTIFICATION_ID, outcome: 'remap', request: FIXTURE_REMAP, flags: { ...NO_FLAGS, triggerSummary: true }, rule: 'sobject:Event' },
        ],
      },
    });
    expect(await queryRows(h.bridge.databaseUrl, 'SELECT id, state, state_reason FROM inbound_events')).toEqual([
      { id: created[0]!.id, state: 'received', state_reason: null },
    ]);
    expect(await expectSettled(h.bridge.databaseUrl)).toEqual([]);
    expect(h.momentum.requests).toEqual([]);
  });
});
