import { readFileSync } from 'node:fs';

import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';

import {
  BILLION_LAUGHS_MESSAGE,
  eventNotification,
  notificationId,
  notifications,
  ORG_ID,
  outboundMessage,
  XXE_MESSAGE,
} from '../salesforce/support/outbound-message-builder.ts';
import { expectRefused, type Harness, PATH, startHarness } from '../salesforce/support/salesforce-route-harness.ts';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/salesforce/${name}`, import.meta.url), 'utf8');
const valid = () => outboundMessage({ notifications: notifications(1) });

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('POST /salesforce/outbound-message (refusals)', () => {
  it('when the message comes from another org, then 403 with a Client fault and nothing stored', async () => {
    harness = await startHarness();

    const response = await harness.post(fixture('foreign-org.xml'));

    await expectRefused(harness, response, {
      status: 403,
      faultcode: 'soapenv:Client',
      faultstring: 'OrganizationId 00D8d0000999XyZEAU is not allowed: it is not listed in SALESFORCE_ORG_IDS',
    });
  });

  it('when the org id differs only in letter case, then it is refused (15-character ids are case-sensitive)', async () => {
    harness = await startHarness();

    const response = await harness.post(outboundMessage({ orgId: '00D8d0000001XYZEAU', notifications: notifications(1) }));

    await expectRefused(harness, response, { status: 403, faultcode: 'soapenv:Client', faultstring: /^OrganizationId 00D8d0000001XYZEAU is not allowed/ });
  });

  it('when no org is configured, then even a valid message gets 503 with a Server fault saying so, logged as a warning without a stack', async () => {
    harness = await startHarness({ env: { SALESFORCE_ORG_IDS: '' } });

    const response = await harness.post(fixture('event-opportunity.xml'));

    await expectRefused(harness, response, {
      status: 503,
      faultcode: 'soapenv:Server',
      faultstring: 'bridge is not configured for Salesforce: set SALESFORCE_ORG_IDS',
    });
    const refusals = harness.logs.lines().filter((line) => String(line.message).startsWith('salesforce message'));
    expect(refusals).toEqual([
      expect.objectContaining({ level: 'warn', message: 'salesforce message refused: not configured', code: 'salesforce_not_configured', status: 503 }),
    ]);
    expect(harness.logs.text()).not.toContain('stack');
  });

  it('when the XML carries an external entity (XXE), then 400 and the entity is never resolved', async () => {
    harness = await startHarness();

    const response = await harness.post(XXE_MESSAGE);

    await expectRefused(harness, response, {
      status: 400,
      faultcode: 'soapenv:Client',
      faultstring: 'DOCTYPE declarations are not allowed; no DTD or entity is processed',
    });
    expect(response.text).not.toContain('root:');
  });

  it('when the XML is a billion-laughs entity bomb, then 400 without expansion', async () => {
    harness = await startHarness();

    const response = await harness.post(BILLION_LAUGHS_MESSAGE);

    await expectRefused(harness, response, {
      status: 400,
      faultcode: 'soapenv:Client',
      faultstring: 'DOCTYPE declarations are not allowed; no DTD or entity is processed',
    });
    expect(response.text).not.toContain('lollol');
  });

  const badMessages: Array<[string, () => string, string | RegExp]> = [
    ['OrganizationId is missing', () => outboundMessage({ orgId: null, notifications: notifications(1) }), 'message has no OrganizationId'],
    ['the XML is truncated', () => valid().slice(0, 500), /^XML is not well-formed at line \d+, column \d+: unclosed tag: /],
    [
      'a JSON body is labelled text/xml',
      () => JSON.stringify({ OrganizationId: ORG_ID }),
      /^XML is not well-formed at line 1, column \d+: text data outside of root node$/,
    ],
    ['there are 101 notifications', () => outboundMessage({ notifications: notifications(101) }), 'message has 101 notifications; at most 100 allowed'],
    [
      'Notification 3 has no sObject',
      () => outboundMessage({ notifications: [...notifications(2), { id: notificationId(3), noSObject: true }] }),
      'Notification 3 has no sObject',
    ],
    [
      'an sObject has no xsi:type',
      () => outboundMessage({ notifications: [{ ...eventNotification(1), type: null }] }),
      'Notification 1 sObject has no xsi:type',
    ],
    [
      'a Notification Id is not a record id',
      () => outboundMessage({ notifications: [{ ...eventNotification(1), id: 'nope' }] }),
      'Notification 1 Id "nope" is not a 15- or 18-character Salesforce id',
    ],
  ];
  it.each(badMessages)('when %s, then 400 with a Client fault saying exactly that', async (_name, xml, faultstring) => {
    harness = await startHarness();

    const response = await harness.post(xml());

    await expectRefused(harness, response, { status: 400, faultcode: 'soapenv:Client', faultstring });
  });

  it('when the body is empty, then 400 saying so', async () => {
    harness = await startHarness();

    const response = await harness.post('');

    await expectRefused(harness, response, { status: 400, faultcode: 'soapenv:Client', faultstring: 'body is empty; expected a SOAP Outbound Message' });
  });

  it('when the body is not valid UTF-8, then 400 saying so', async () => {
    harness = await startHarness();
    const bytes = Buffer.concat([Buffer.from(valid().slice(0, 300)), Buffer.from([0xc3, 0x28]), Buffer.from(valid().slice(300))]);

    const response = await harness.post(bytes);

    await expectRefused(harness, response, { status: 400, faultcode: 'soapenv:Client', faultstring: 'body is not valid UTF-8' });
  });

  it('when the body starts with two byte-order marks, then 400: the second one is text before the root element', async () => {
    harness = await startHarness();
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);

    const response = await harness.post(Buffer.concat([bom, bom, Buffer.from(valid(), 'utf8')]));

    await expectRefused(harness, response, {
      status: 400,
      faultcode: 'soapenv:Client',
      faultstring: /^XML is not well-formed at line 1, column \d+: text data outside of root node$/,
    });
  });

  it('when the body is 3 MB, then 413 naming the limit', async () => {
    harness = await startHarness();
    const padding = `<!-- ${'x'.repeat(3 * 1024 * 1024)} -->`;

    const response = await harness.post(valid().replace('<soapenv:Body>', `<soapenv:Body>${padding}`));

    await expectRefused(harness, response, {
      status: 413,
      faultcode: 'soapenv:Client',
      faultstring: 'body is larger than SALESFORCE_MAX_BODY (2097152 bytes)',
    });
  });

  it.each([
    ['application/json', JSON.stringify({ OrganizationId: ORG_ID }), 'Content-Type "application/json" is not accepted; send text/xml'],
    ['text/plain', valid(), 'Content-Type "text/plain" is not accepted; send text/xml'],
    ['application/x-www-form-urlencoded', 'a=b', 'Content-Type "application/x-www-form-urlencoded" is not accepted; send text/xml'],
    ['', valid(), 'Content-Type "(none)" is not accepted; send text/xml'],
    ['text/xml; charset=ISO-8859-1', valid(), 'charset "iso-8859-1" is not accepted; send UTF-8'],
  ])('when the Content-Type is %j, then 415 with a Client fault', async (contentType, body, faultstring) => {
    harness = await startHarness();

    const response = await harness.post(Buffer.from(body), contentType);

    await expectRefused(harness, response, { status: 415, faultcode: 'soapenv:Client', faultstring });
  });

  it.each(['application/soap+xml; charset=utf-8', 'TEXT/XML'])('when the Content-Type is %j, then the message is accepted', async (contentType) => {
    harness = await startHarness();

    const response = await harness.post(valid(), contentType);

    expect(response.status).toBe(200);
  });

  it('when the route is called with GET, then 405 with a SOAP fault and Allow: POST', async () => {
    harness = await startHarness();

    const response = await request(harness.app).get(PATH);

    await expectRefused(harness, response, { status: 405, faultcode: 'soapenv:Client', faultstring: 'GET is not allowed; Outbound Messages are POSTed' });
    expect(response.headers.allow).toBe('POST');
  });

  it('when a refusal happens, then it is logged as a warning with the reason and not the payload', async () => {
    harness = await startHarness();

    await harness.post(fixture('foreign-org.xml'));

    const line = harness.logs.lines().find((entry) => entry.message === 'salesforce message refused');
    expect(line).toMatchObject({ level: 'warn', status: 403, code: 'org_not_allowed' });
    expect(harness.logs.text()).not.toContain('Not ours');
  });
});
