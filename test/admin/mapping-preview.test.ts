import { readFileSync } from 'node:fs';

import { Validator } from '@seriousme/openapi-schema-validator';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';

import { parseOutboundMessage } from '../../src/salesforce/soap-parser.ts';
import { storedNotifications } from '../../src/salesforce/stored-notification.ts';
import { type FakeMomentum, startFakeMomentum } from '../fakes/fake-momentum.ts';
import { startTestBridge, type TestBridge } from '../support/test-bridge.ts';
import { type AdminApp, KEY, startAdminApp } from './support/admin-app.ts';
import { storeEvent } from './support/seed.ts';

const PATH = '/admin/mapping/preview';
const ORG_ID = '00D8d0000001XyZEAU';
const fixture = (name: string) => readFileSync(new URL(`../fixtures/salesforce/${name}`, import.meta.url), 'utf8');
const EVENT_XML = fixture('event-opportunity.xml');
const NOTIFICATION_ID = '04l8d0000101XyZAAU';

/** The remap /work/shared/fixtures/README.md documents for event-opportunity.xml under the default mapping (no owner lookup configured). */
const FIXTURE_REMAP = {
  salesforceRecords: { opportunityId: '0068d0000101XyZAAU', accountId: '0018d0000101XyZAAU' },
  meetingDetails: { title: 'Pricing review with Globex', startTime: '2026-03-02T16:00:00.000Z' },
};
const NO_FLAGS = { triggerSummary: false, triggerAiSignals: false };

const meeting = {
  version: 1,
  id: 'AAMkAGI2TG93AAA=',
  sourceType: 'MS_TEAMS',
  title: 'Globex pricing review',
  start: '2026-03-02T16:00:00Z',
  end: '2026-03-02T16:30:00Z',
  organizer: { email: 'ann.seller@acme.test', name: 'Ann Seller' },
  attendees: [{ email: 'hank.buyer@globex.test', name: 'Hank Buyer' }],
  description: 'Notes: https://acme.lightning.force.com/lightning/r/Opportunity/0068d0000101XyZAAU/view',
};

const recording = {
  kind: 'recording',
  version: 1,
  id: 'rec-2026-03-02-globex',
  recordingUrl: 'https://recordings.acme.test/rec-2026-03-02-globex',
  title: 'Globex pricing review',
  start: '2026-03-02T16:00:00Z',
  end: '2026-03-02T16:30:00Z',
  host: { email: 'ann.seller@acme.test', name: 'Ann Seller' },
  attendees: [{ email: 'hank.buyer@globex.test' }],
  salesforce: { opportunityId: '0068d0000101XyZAAU' },
};

describe('POST /admin/mapping/preview', () => {
  let momentum: FakeMomentum | undefined;
  let bridge: TestBridge | undefined;
  let app: AdminApp | undefined;
  afterEach(async () => {
    await bridge?.stop();
    await momentum?.close();
    await app?.close();
    bridge = undefined;
    momentum = undefined;
    app = undefined;
  });

  /** The whole bridge, Momentum at a fake, the fixtures' org allowed. */
  async function start(): Promise<TestBridge> {
    momentum = await startFakeMomentum();
    bridge = await startTestBridge({
      env: {
        ADMIN_API_KEYS: KEY,
        MOMENTUM_API_KEY: 'momentum-test-key-0123456789',
        MOMENTUM_API_BASE_URL: momentum.url,
        MOMENTUM_RECEIVER_URL: momentum.url,
        SALESFORCE_ORG_IDS: ORG_ID,
      },
      logLevel: 'info',
    });
    return bridge;
  }
  const preview = (body: unknown) =>
    request(bridge!.url)
      .post(PATH)
      .set('Authorization', `Bearer ${KEY}`)
      .send(body as object);
  const counts = async () => {
    const store = await bridge!.store();
    return { events: (await store.listEvents({ limit: 200 })).length, jobs: await store.countJobs({}) };
  };
  const adminChanges = () => bridge!.logs.lines().filter((line) => line.message === 'admin change');

  it('when the Event fixture is previewed, then it is the documented remap, and nothing is stored, logged as a change or sent to Momentum', async () => {
    await start();
    const before = await counts();

    const response = await preview({ source: 'salesforce', payload: EVENT_XML });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      source: 'salesforce',
      results: [{ notificationId: NOTIFICATION_ID, outcome: 'remap', request: FIXTURE_REMAP, flags: NO_FLAGS, rule: 'sobject:Event' }],
    });
    expect(await counts()).toEqual(before);
    expect(before).toEqual({ events: 0, jobs: 0 });
    expect(adminChanges()).toEqual([]);
    expect(momentum!.requests).toEqual([]);
  });

  it('when a proposed mapping disables Event, then the proposed results show it skipped beside the remap of the rules in force', async () => {
    await start();

    const response = await preview({ source: 'salesforce', payload: EVENT_XML, mapping: { sObjects: { Event: { enabled: false } } } });

    expect(response.status).toBe(200);
    expect(response.body.results).toEqual([expect.objectContaining({ notificationId: NOTIFICATION_ID, outcome: 'remap', request: FIXTURE_REMAP })]);
    expect(response.body.proposed).toEqual({
      results: [{ notificationId: NOTIFICATION_ID, outcome: 'skipped', reason: 'mapping for sObject type Event is disabled', rule: 'none' }],
    });
    expect(await counts()).toEqual({ events: 0, jobs: 0 });
    expect(momentum!.requests).toEqual([]);
  });

  it('when a signed calendar body links a Salesforce opportunity, then it previews as a remap by the salesforce_link rule', async () => {
    await start();

    const response = await preview({ source: 'calendar', payload: meeting });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      source: 'calendar',
      results: [
        {
          outcome: 'remap',
          request: {
            source: { type: 'MS_TEAMS', id: meeting.id },
            salesforceRecords: { opportunityId: '0068d0000101XyZAAU' },
            meetingDetails: { title: meeting.title, startTime: meeting.start, hostEmail: 'ann.seller@acme.test' },
          },
          flags: NO_FLAGS,
          rule: 'salesforce_link',
        },
      ],
    });
    expect(await counts()).toEqual({ events: 0, jobs: 0 });
  });

  it('when a signed recording body is previewed, then it is an import with the explicit opportunity', async () => {
    await start();

    const response = await preview({ source: 'calendar', payload: recording });

    expect(response.status).toBe(200);
    expect(response.body.source).toBe('recording');
    expect(response.body.results).toEqual([
      {
        outcome: 'import',
        request: {
          meeting: expect.objectContaining({
            id: recording.id,
            recordingUrl: recording.recordingUrl,
            host: { email: 'ann.seller@acme.test', name: 'Ann Seller' },
            salesforceOpportunityId: '0068d0000101XyZAAU',
          }),
          processImportedMeeting: true,
        },
        rule: 'explicit_ids',
      },
    ]);
    expect(await counts()).toEqual({ events: 0, jobs: 0 });
    expect(momentum!.requests).toEqual([]);
  });

  it('when a stored event is previewed by id, then its stored notification maps under both rule sets and nothing is added', async () => {
    await start();
    const store = await bridge!.store();
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
    const before = await counts();

    const response = await preview({ eventId: created[0]!.id, mapping: { sObjects: { Event: { triggerSummary: true } } } });

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
    expect(await counts()).toEqual(before);
    expect((await store.getEvent(created[0]!.id))?.state).toBe('received');
    expect(momentum!.requests).toEqual([]);
  });

  const REFUSALS: Array<{ name: string; body: unknown; status: number; code: string; message: RegExp }> = [
    {
      name: 'the XML is not well-formed',
      body: { source: 'salesforce', payload: EVENT_XML.replace('</soapenv:Body>', '') },
      status: 400,
      code: 'invalid_xml',
      message: /XML is not well-formed/,
    },
    {
      name: 'the message is from an org not in SALESFORCE_ORG_IDS',
      body: { source: 'salesforce', payload: fixture('foreign-org.xml') },
      status: 400,
      code: 'org_not_allowed',
      message: /OrganizationId 00D8d0000999XyZEAU is not allowed: it is not listed in SALESFORCE_ORG_IDS/,
    },
    {
      name: 'the proposed mapping file is invalid',
      body: { source: 'salesforce', payload: EVENT_XML, mapping: { sObjects: { Event: { enabled: 'no', titelField: 'Subject' } } } },
      status: 400,
      code: 'invalid_mapping',
      message: /sObjects\.Event\.(enabled|titelField)/,
    },
    { name: 'the event does not exist', body: { eventId: 987654 }, status: 404, code: 'not_found', message: /inbound event 987654 does not exist/ },
    { name: 'neither an event nor a payload is named', body: { mapping: {} }, status: 400, code: 'invalid_body', message: /source: required unless eventId/ },
    {
      name: 'both an event and a payload are named',
      body: { eventId: 1, source: 'salesforce', payload: EVENT_XML },
      status: 400,
      code: 'invalid_body',
      message: /give either eventId/,
    },
    {
      name: 'the salesforce payload is not text',
      body: { source: 'salesforce', payload: { xml: EVENT_XML } },
      status: 400,
      code: 'invalid_body',
      message: /payload: expected the Outbound Message XML/,
    },
    {
      name: 'the source is unknown',
      body: { source: 'zoom', payload: {} },
      status: 400,
      code: 'invalid_body',
      message: /source must be "salesforce" or "calendar"/,
    },
    {
      name: 'the signed body does not match its schema',
      body: { source: 'calendar', payload: { ...meeting, start: 'tomorrow' } },
      status: 400,
      code: 'invalid_payload',
      message: /payload\.start: expected an ISO 8601 date-time/,
    },
  ];

  it.each(REFUSALS)('when $name, then $status $code saying so, and nothing is stored or sent', async ({ body, status, code, message }) => {
    await start();

    const response = await preview(body);

    expect(response.status).toBe(status);
    expect(response.body.error.code).toBe(code);
    expect(response.body.error.message).toMatch(message);
    expect(await counts()).toEqual({ events: 0, jobs: 0 });
    expect(adminChanges()).toEqual([]);
    expect(momentum!.requests).toEqual([]);
  });

  it('when a mapping file has several problems, then details lists each with its JSON path, as MAPPING_FILE would', async () => {
    await start();

    const response = await preview({ eventId: 1, mapping: { sObjects: { Event: { enabled: 'no' } }, calendar: { explicitIdKeys: { opportunity: '' } } } });

    expect(response.status).toBe(400);
    expect(response.body.error.details.problems).toEqual([
      'sObjects.Event.enabled: expected boolean, got string "no"',
      'calendar.explicitIdKeys.opportunity: expected a non-empty key',
    ]);
  });

  it('when a stored event can never be mapped, or no mapper reads its source, then 400 says which, and it stays as it was', async () => {
    await start();
    const store = await bridge!.store();
    const malformed = await storeEvent(store, { key: 'salesforce:04l8d0000101XyZAAA' });
    const foreign = await storeEvent(store, { key: 'fax:1', source: 'fax' });

    const unmappable = await preview({ eventId: malformed.id });
    const noMapper = await preview({ eventId: foreign.id });

    expect(unmappable.status).toBe(400);
    expect(unmappable.body.error).toMatchObject({ code: 'unmappable', message: expect.stringContaining('stored Salesforce notification is malformed') });
    expect(noMapper.status).toBe(400);
    expect(noMapper.body.error).toMatchObject({ code: 'no_mapper', message: 'no mapper for inbound events from source "fax"' });
    expect(await counts()).toEqual({ events: 2, jobs: 0 });
    expect((await store.getEvent(malformed.id))?.state).toBe('received');
  });

  it('when a signed body is invalid, then details lists the zod issues under payload', async () => {
    await start();

    const response = await preview({ source: 'calendar', payload: { ...recording, recordingUrl: 'not a url', id: 'two words' } });

    expect(response.status).toBe(400);
    expect(response.body.error.details.issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'payload.id', message: 'expected 1 to 256 characters without spaces' }),
        expect.objectContaining({ path: 'payload.recordingUrl', message: 'expected an absolute http or https URL' }),
      ]),
    );
  });

  it('when the bridge serves the preview, then the valid OpenAPI document describes it with its body', async () => {
    await start();

    const response = await request(bridge!.url).get('/admin/openapi.json').set('Authorization', `Bearer ${KEY}`);

    const operation = response.body.paths[PATH].post;
    expect(operation.operationId).toBe('previewMapping');
    expect(Object.keys(operation.requestBody.content['application/json'].schema.properties)).toEqual(['source', 'payload', 'eventId', 'mapping']);
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '502']));
    const validity = await new Validator().validate(response.body);
    expect(validity.errors ?? []).toEqual([]);
  });

  it('when the app is built without the mapping preview, then the route answers 404 like any unknown path and is not documented', async () => {
    app = await startAdminApp();

    const response = await app.post(PATH, { source: 'salesforce', payload: EVENT_XML });

    expect(response.status).toBe(404);
    const document = (await app.get('/admin/openapi.json').expect(200)).body as { paths: Record<string, unknown> };
    expect(document.paths[PATH]).toBeUndefined();
  });
});
