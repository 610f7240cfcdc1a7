import { Validator } from '@seriousme/openapi-schema-validator';
import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { cleanupAfterEach } from '../support/cleanups.ts';
import { describeEachEngine, queryRows } from '../support/stored-state.ts';
import { KEY, startAdminApp } from './support/admin-app.ts';
import { EVENT_XML, MEETING, PREVIEW_PATH, RECORDING, salesforceFixture, startPreviewBridge } from './support/preview-bridge.ts';
import { storeEvent } from './support/seed.ts';

/*
 * What POST /admin/mapping/preview refuses, through the whole bridge on both engines: each refusal
 * names its cause, and nothing is stored, queued, logged as a change or sent to Momentum.
 */

const cleanups = cleanupAfterEach();

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
    body: { source: 'salesforce', payload: salesforceFixture('foreign-org.xml') },
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
    body: { source: 'calendar', payload: { ...MEETING, start: 'tomorrow' } },
    status: 400,
    code: 'invalid_payload',
    message: /payload\.start: expected an ISO 8601 date-time/,
  },
];

describeEachEngine('POST /admin/mapping/preview refusals', (engine) => {
  it.each(REFUSALS)('when $name, then $status $code saying so, and nothing is stored or sent', async ({ body, status, code, message }) => {
    const h = await startPreviewBridge(engine, cleanups);

    const response = await h.preview(body);

    expect(response.status).toBe(status);
    expect(response.body.error.code).toBe(code);
    expect(response.body.error.message).toMatch(message);
    expect(await h.counts()).toEqual({ events: 0, jobs: 0 });
    expect(h.adminChanges()).toEqual([]);
    expect(h.momentum.requests).toEqual([]);
  });

  it('when a mapping file has several problems, then details lists each with its JSON path, as MAPPING_FILE would', async () => {
    const h = await startPreviewBridge(engine, cleanups);

    const response = await h.preview({ eventId: 1, mapping: { sObjects: { Event: { enabled: 'no' } }, calendar: { explicitIdKeys: { opportunity: '' } } } });

    expect(response.status).toBe(400);
    expect(response.body.error.details.problems).toEqual([
      'sObjects.Event.enabled: expected boolean, got string "no"',
      'calendar.explicitIdKeys.opportunity: expected a non-empty key',
    ]);
  });

  it('when a stored event can never be mapped, or no mapper reads its source, then 400 says which, and it stays as it was', async () => {
    const h = await startPreviewBridge(engine, cleanups);
    const store = await h.bridge.store();
    const malformed = await storeEvent(store, { key: 'salesforce:04l8d0000101XyZAAA' });
    const foreign = await storeEvent(store, { key: 'fax:1', source: 'fax' });

    const unmappable = await h.preview({ eventId: malformed.id });
    const noMapper = await h.preview({ eventId: foreign.id });

    expect(unmappable.status).toBe(400);
    expect(unmappable.body.error).toMatchObject({ code: 'unmappable', message: expect.stringContaining('stored Salesforce notification is malformed') });
    expect(noMapper.status).toBe(400);
    expect(noMapper.body.error).toMatchObject({ code: 'no_mapper', message: 'no mapper for inbound events from source "fax"' });
    expect(await h.counts()).toEqual({ events: 2, jobs: 0 });
    expect(await queryRows(h.bridge.databaseUrl, 'SELECT state FROM inbound_events ORDER BY id')).toEqual([{ state: 'received' }, { state: 'received' }]);
  });

  it('when a signed body is invalid, then details lists the zod issues under payload, unknown fields and non-http(s) links included', async () => {
    const h = await startPreviewBridge(engine, cleanups);
    const { host, ...withoutHost } = RECORDING;

    const response = await h.preview({
      source: 'calendar',
      payload: { ...withoutHost, organizer: host, recordingUrl: 'javascript:alert(1)', id: 'two words' },
    });

    expect(response.status).toBe(400);
    expect(response.body.error.details.issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'payload.id', message: 'expected 1 to 256 characters without spaces' }),
        expect.objectContaining({ path: 'payload.recordingUrl', message: 'expected an absolute http or https URL' }),
        { path: 'payload.organizer', code: 'unrecognized_keys', message: 'unknown field; a recording names its host "host"' },
      ]),
    );
    expect(await h.counts()).toEqual({ events: 0, jobs: 0 });
  });

  it('when the bridge serves the preview, then the valid OpenAPI document describes it with its body', async () => {
    const h = await startPreviewBridge(engine, cleanups);

    const response = await request(h.bridge.url).get('/admin/openapi.json').set('Authorization', `Bearer ${KEY}`);

    const operation = response.body.paths[PREVIEW_PATH].post;
    expect(operation.operationId).toBe('previewMapping');
    expect(Object.keys(operation.requestBody.content['application/json'].schema.properties)).toEqual(['source', 'payload', 'eventId', 'mapping']);
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '502']));
    const validity = await new Validator().validate(response.body);
    expect(validity.errors ?? []).toEqual([]);
  });
});

describe('POST /admin/mapping/preview on an app without it', () => {
  it('when the app is built without the mapping preview, then the route answers 404 like any unknown path and is not documented', async () => {
    const app = await startAdminApp();
    cleanups.push(app.close);

    const response = await app.post(PREVIEW_PATH, { source: 'salesforce', payload: EVENT_XML });

    expect(response.status).toBe(404);
    const document = (await app.get('/admin/openapi.json').expect(200)).body as { paths: Record<string, unknown> };
    expect(document.paths[PREVIEW_PATH]).toBeUndefined();
  });
});
