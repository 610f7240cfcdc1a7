import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { KEY } from '../admin/support/admin-app.ts';
import { signedHeaders, WEBHOOK_SECRET } from '../calendar/support/signed-events.ts';
import { eventNotification, outboundMessage } from '../salesforce/support/outbound-message-builder.ts';
import { readFault } from '../salesforce/support/soap-reply-reader.ts';
import { type EngineApp, startEngineApp } from '../support/app-harness.ts';
import { ENGINES } from '../support/real-store.ts';

/*
 * An id is an id: every inbound value that is stored as a key or logged is checked for shape and
 * length, a malformed one is a precise 4xx with nothing stored, and no line the bridge logs about
 * a request grows with what the request carried.
 */

const SECRET = WEBHOOK_SECRET;
const ORG_15 = '00D8d0000001XyZ';
/** The most any log line about one request may take, whatever it carried (100 kB values below). */
const LINE_MAX = 2048;
const HUGE = 'A'.repeat(100_000);
const LONG_HEADER = 'A'.repeat(10_000); // Node refuses a header block over 16 kB (431) before the app.

const valid = () => outboundMessage({ notifications: [eventNotification(1)] });

function expectBoundedLines(h: EngineApp, from: number): void {
  const lines = h.logs
    .text()
    .split('\n')
    .filter((line) => line !== '')
    .slice(from);
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) expect(Buffer.byteLength(line), line.slice(0, 200)).toBeLessThanOrEqual(LINE_MAX);
}

for (const { engine, skip, title } of ENGINES) {
  describe.skipIf(skip)(`inbound ids and logged values are bounded ${title}`, () => {
    let h: EngineApp;
    beforeAll(async () => {
      h = await startEngineApp(engine, {
        env: { SALESFORCE_ORG_IDS: ORG_15, CALENDAR_WEBHOOK_SECRETS: SECRET, ADMIN_API_KEYS: KEY, ADMIN_AUTH_FAILURE_LIMIT: 'off', LOG_LEVEL: 'debug' },
      });
    });
    afterAll(async () => {
      await h?.close();
    });

    /** Sends, then checks nothing was stored and every new log line (the access line included) is bounded. */
    async function refused(send: () => request.Test): Promise<request.Response> {
      const before = await h.counts();
      const linesBefore = h.logs
        .text()
        .split('\n')
        .filter((line) => line !== '').length;
      const response = await send();
      await h.logs.waitForLine((line) => line.message === 'request' && line.status === response.status);
      expect(await h.counts()).toEqual(before);
      expectBoundedLines(h, linesBefore);
      return response;
    }

    const postXml = (xml: string, contentType = 'text/xml; charset=UTF-8') =>
      request(h.app).post('/salesforce/outbound-message').set('Content-Type', contentType).set('SOAPAction', '""').send(xml);

    it.each([
      ['an ActionId of 100 kB', valid().replace(/<ActionId>[^<]*</, `<ActionId>${HUGE}<`), /^ActionId "A{40}…" is not a 15- or 18-character Salesforce id$/],
      [
        'an ActionId of 16 characters',
        valid().replace(/<ActionId>[^<]*</, '<ActionId>04k8d0000001XyZA<'),
        'ActionId "04k8d0000001XyZA" is not a 15- or 18-character Salesforce id',
      ],
      [
        'an ActionId with a hyphen',
        valid().replace(/<ActionId>[^<]*</, '<ActionId>04k8d0000001-yZAAU<'),
        'ActionId "04k8d0000001-yZAAU" is not a 15- or 18-character Salesforce id',
      ],
      [
        'an OrganizationId of 100 kB',
        valid().replace(/<OrganizationId>[^<]*</, `<OrganizationId>${HUGE}<`),
        /^OrganizationId "A{40}…" is not a 15- or 18-character Salesforce id$/,
      ],
      [
        'a Notification Id of 100 kB',
        valid().replace(/<Id>04l8d[^<]*</, `<Id>${HUGE}<`),
        /^Notification 1 Id "A{40}…" is not a 15- or 18-character Salesforce id$/,
      ],
      [
        'an sObject type name of 100 kB',
        valid().replace('xsi:type="sf:Event"', `xsi:type="sf:${HUGE}"`),
        /^Notification 1 sObject xsi:type "sf:A{37}…" is not an sObject type name$/,
      ],
      [
        'a root element name of 100 kB',
        valid().replace(/soapenv:Envelope/g, `soapenv:E${HUGE}`),
        /^root element is \{http:\/\/schemas\.xmlsoap\.org\/soap\/envelope\/\}EA+…$/,
      ],
    ])(
      'when a Salesforce message carries %s, then 400 with a Client fault, nothing stored, and no log line past the bound',
      async (_case, xml, faultstring) => {
        const response = await refused(() => postXml(xml));

        expect(response.status).toBe(400);
        expect(response.text).not.toContain('<Ack>');
        expect(readFault(response.text)).toEqual({
          faultcode: 'soapenv:Client',
          faultstring: expect.stringMatching(
            faultstring instanceof RegExp ? faultstring : new RegExp(`^${faultstring.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`),
          ),
        });
        expect(response.text.length).toBeLessThan(2048);
      },
    );

    it('when a valid Salesforce message is acked, then its access line carries the ActionId and OrganizationId, bounded as ids are', async () => {
      const linesBefore = h.logs.lines().length;

      const response = await postXml(valid());

      expect(response.status).toBe(200);
      const line = await h.logs.waitForLine((entry) => entry.message === 'request' && entry.route === '/salesforce/outbound-message' && entry.status === 200);
      expect(line).toMatchObject({ actionId: '04k8d0000001XyZAAU', organizationId: '00D8d0000001XyZEAU' });
      expectBoundedLines(h, linesBefore);
    });

    it('when the Content-Type header is 10 kB, then 415 naming only its first characters', async () => {
      const response = await refused(() => postXml(valid(), `text/${LONG_HEADER}`));

      expect(response.status).toBe(415);
      expect(readFault(response.text)?.faultstring).toMatch(/^Content-Type "text\/A+…" is not accepted; send text\/xml$/);
    });

    const push = (headers: Record<string, string>) =>
      request(h.app)
        .post('/calendar/google/notifications')
        .set({ 'X-Goog-Channel-ID': 'bridge-3f6c2b1e', 'X-Goog-Resource-State': 'exists', ...headers });

    it.each([
      ['X-Goog-Channel-ID of 10 kB', { 'X-Goog-Channel-ID': LONG_HEADER }, 'X-Goog-Channel-ID must be 1 to 64 characters: letters, digits and - _ + / ='],
      [
        'X-Goog-Channel-ID of 65 characters',
        { 'X-Goog-Channel-ID': 'c'.repeat(65) },
        'X-Goog-Channel-ID must be 1 to 64 characters: letters, digits and - _ + / =',
      ],
      [
        'X-Goog-Channel-ID with a Latin-1 letter (the obs-text byte 0xFF)',
        { 'X-Goog-Channel-ID': 'bridge-3f6c\u00ff' },
        'X-Goog-Channel-ID must be 1 to 64 characters: letters, digits and - _ + / =',
      ],
      [
        'X-Goog-Channel-Token of 257 characters',
        { 'X-Goog-Channel-Token': 't'.repeat(257) },
        'X-Goog-Channel-Token must be 1 to 256 printable ASCII characters',
      ],
      ['X-Goog-Resource-ID of 10 kB', { 'X-Goog-Resource-ID': LONG_HEADER }, 'X-Goog-Resource-ID must be 1 to 256 printable ASCII characters'],
      ['X-Goog-Message-Number that is not a number', { 'X-Goog-Message-Number': '12abc' }, 'X-Goog-Message-Number must be a whole number of at most 20 digits'],
    ])('when a Google push carries %s, then 400 saying so and nothing stored', async (_case, headers, message) => {
      const response = await refused(() => push(headers));

      expect(response.status).toBe(400);
      expect(response.body.error).toEqual({ code: 'invalid_notification', message });
    });

    const sendEvent = (id: string, header: 'webhook' | 'svix' = 'webhook') => {
      const body = '{"version":1}';
      return request(h.app)
        .post('/calendar/events')
        .set('Content-Type', 'application/json')
        .set(signedHeaders(body, { id, prefix: header }))
        .send(body);
    };

    it.each([
      ['webhook-id of 10 kB', () => sendEvent(LONG_HEADER), 'webhook-id must be 1 to 255 characters: letters, digits and . _ : @ -'],
      ['svix-id of 256 characters', () => sendEvent('m'.repeat(256), 'svix'), 'svix-id must be 1 to 255 characters: letters, digits and . _ : @ -'],
      ['webhook-id with a space', () => sendEvent('msg 1'), 'webhook-id must be 1 to 255 characters: letters, digits and . _ : @ -'],
    ])('when a signed calendar event carries a %s, then 400 invalid_header and nothing stored', async (_case, send, message) => {
      const response = await refused(send);

      expect(response.status).toBe(400);
      expect(response.body.error).toEqual({ code: 'invalid_header', message });
    });

    it('when an unknown path is 10 kB long, then 404 and the access line keeps only its start', async () => {
      const response = await refused(() => request(h.app).get(`/${LONG_HEADER}`));

      expect(response.status).toBe(404);
      const line = await h.logs.waitForLine((entry) => entry.message === 'request' && entry.status === 404);
      expect(line.path).toBe(`/${'A'.repeat(199)}…`);
    });

    it('when an admin body carries a 100 kB unknown key, then 400 and the refusal line is bounded', async () => {
      const response = await refused(() =>
        request(h.app)
          .post('/admin/deliveries/replay')
          .set('Authorization', `Bearer ${KEY}`)
          .send({ filter: {}, [HUGE]: true }),
      );

      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('invalid_body');
      expect(response.body.error.message.length).toBeLessThanOrEqual(501);
    });
  });
}
