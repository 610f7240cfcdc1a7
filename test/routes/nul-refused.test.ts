import { once } from 'node:events';
import { connect } from 'node:net';

import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';

import { signedHeaders, TEAMS_MEETING, WEBHOOK_SECRET } from '../calendar/support/signed-events.ts';
import { eventNotification, outboundMessage } from '../salesforce/support/outbound-message-builder.ts';
import { readFault } from '../salesforce/support/soap-reply-reader.ts';
import { type EngineApp, startEngineApp } from '../support/app-harness.ts';
import { listenOnLoopback } from '../support/listen-on-loopback.ts';
import { ENGINES } from '../support/real-store.ts';

/*
 * U+0000 (and text like it that no store keeps faithfully) is refused with a 400 at every inbound
 * edge, on both engines, and nothing is stored: PostgreSQL cannot store NUL in text, so an acked
 * message holding one would be stored on SQLite only, or leave a job failing on every retry.
 */

const SECRET = WEBHOOK_SECRET;
const ORG_15 = '00D8d0000001XyZ';
const NOTHING = { messages: 0, events: 0, jobs: 0, calendars: 0 };

let harness: EngineApp | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const start = async (engine: (typeof ENGINES)[number]['engine']) => {
  harness = await startEngineApp(engine, { env: { SALESFORCE_ORG_IDS: ORG_15, CALENDAR_WEBHOOK_SECRETS: SECRET } });
  return harness;
};

for (const { engine, skip, title } of ENGINES) {
  describe.skipIf(skip)(`POST /salesforce/outbound-message ${title}`, () => {
    const post = (h: EngineApp, xml: string) =>
      request(h.app).post('/salesforce/outbound-message').set('Content-Type', 'text/xml; charset=UTF-8').set('SOAPAction', '""').send(xml);
    const clean = () => outboundMessage({ notifications: [eventNotification(1, { Subject: 'Pricing review' })] });

    it.each([
      [
        'a field holds the character reference &#0;',
        (xml: string) => xml.replace('Pricing review', 'Pricing&#0;review'),
        /^XML is not well-formed at line \d+, column \d+: character reference &#0; is U\+0000 \(NUL\), which XML does not allow$/,
      ],
      [
        'the ActionId holds &#x0000;',
        (xml: string) => xml.replace('</ActionId>', '&#x0000;</ActionId>'),
        /: character reference &#x0000; is U\+0000 \(NUL\), which XML does not allow$/,
      ],
      [
        'an attribute holds &#0;',
        (xml: string) => xml.replace('xsi:type="sf:Event"', 'xsi:type="sf:Event&#0;"'),
        /: character reference &#0; is U\+0000 \(NUL\)/,
      ],
      [
        'a field holds a raw NUL',
        (xml: string) => xml.replace('Pricing review', 'Pricing\u0000review'),
        /^XML is not well-formed at line \d+, column \d+: the body holds U\+0000 \(NUL\), which cannot be stored$/,
      ],
      ['a comment after the envelope holds a raw NUL', (xml: string) => `${xml}\n<!-- \u0000 -->`, /: the body holds U\+0000 \(NUL\), which cannot be stored$/],
    ])('when %s, then 400 with a Client fault saying so, no ack, and nothing stored', async (_case, taint, faultstring) => {
      const h = await start(engine);

      const response = await post(h, taint(clean()));

      expect(response.status).toBe(400);
      expect(response.headers['content-type']).toBe('text/xml; charset=utf-8');
      expect(response.text).not.toContain('<Ack>');
      expect(readFault(response.text)).toEqual({ faultcode: 'soapenv:Client', faultstring: expect.stringMatching(faultstring) });
      expect(await h.counts()).toEqual(NOTHING);
    });

    it('when the same message arrives without the NUL, then it is acked and stored (the refusal was about the NUL alone)', async () => {
      const h = await start(engine);
      await post(h, clean().replace('Pricing review', 'Pricing&#0;review'));

      const response = await post(h, clean());

      expect(response.status).toBe(200);
      expect(response.text).toContain('<Ack>true</Ack>');
      expect(await h.counts()).toEqual({ messages: 1, events: 1, jobs: 1, calendars: 0 });
    });
  });

  describe.skipIf(skip)(`POST /calendar/events ${title}`, () => {
    const event = TEAMS_MEETING;
    let sent = 0;
    /** Signs and posts the body exactly as given (JSON text, so `\u0000` arrives as the six characters of its escape). */
    const send = (h: EngineApp, raw: string) => {
      return (
        request(h.app)
          .post('/calendar/events')
          .set('Content-Type', 'application/json')
          .set(signedHeaders(raw, { id: `msg_${++sent}` }))
          // A string goes out as its UTF-8 bytes, exactly those signed (a Buffer would be serialised as JSON).
          .send(raw)
      );
    };
    const withField = (extra: string) => JSON.stringify(event).replace(/}$/, `,${extra}}`);

    it.each([
      ['the event id', JSON.stringify({ ...event, id: 'evt\u0000' }), 'id', 'holds U+0000 (NUL), which cannot be stored'],
      ['the title', JSON.stringify({ ...event, title: 'Pricing\u0000review' }), 'title', 'holds U+0000 (NUL), which cannot be stored'],
      [
        'the organizer name',
        JSON.stringify({ ...event, organizer: { email: 'ana.rep@example.com', name: '\u0000' } }),
        'organizer.name',
        'holds U+0000 (NUL), which cannot be stored',
      ],
      [
        'an attendee name',
        JSON.stringify({ ...event, attendees: [{ email: 'hank.buyer@globex.test', name: 'Hank\u0000' }] }),
        'attendees.0.name',
        'holds U+0000 (NUL), which cannot be stored',
      ],
      ['a field the schema ignores, three levels down', withField('"ext":{"crm":["ok","\\u0000"]}'), 'ext.crm.1', 'holds U+0000 (NUL), which cannot be stored'],
      ['a key', withField('"x\\u0000":1'), '(root)', 'has a key that holds U+0000 (NUL), which cannot be stored'],
      ['the title as an unpaired surrogate', withField('"note":"\\ud800"'), 'note', 'holds an unpaired UTF-16 surrogate, which is not Unicode text'],
      [
        'JSON nested 100 levels deep',
        withField(`"ext":${'['.repeat(100)}${']'.repeat(100)}`),
        expect.stringMatching(/^ext(\.0)+$/),
        'nests deeper than 64 levels',
      ],
    ])('when %s holds it, then 400 names the field and nothing is stored', async (_case, raw, path, message) => {
      const h = await start(engine);

      const response = await send(h, raw);

      expect(response.status).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'invalid_body', details: { issues: [{ path, code: 'unstorable_text', message }] } });
      expect(response.body.error.message).toMatch(/^body: \S+ /);
      expect(await h.counts()).toEqual(NOTHING);
    });

    it('when the body holds a raw NUL byte, then 400 invalid_json (JSON allows no control character unescaped) and nothing is stored', async () => {
      const h = await start(engine);

      const response = await send(h, JSON.stringify(event).replace('Globex', 'Glo\u0000bex'));

      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('invalid_json');
      expect(await h.counts()).toEqual(NOTHING);
    });

    it('when the same event arrives without the NUL, then it is stored (the refusal was about the NUL alone)', async () => {
      const h = await start(engine);
      await send(h, JSON.stringify({ ...event, id: 'evt\u0000' }));

      const response = await send(h, JSON.stringify(event));

      expect(response.status).toBe(202);
      expect(await h.counts()).toEqual({ messages: 1, events: 1, jobs: 1, calendars: 0 });
    });
  });

  describe.skipIf(skip)(`POST /calendar/google/notifications ${title}`, () => {
    const CHANNEL = {
      id: 'bridge-3f6c2b1e-6a4d-4f1b-9a57-0c1d2e3f4a5b',
      calendarId: 'ana.rep@example.com',
      token: 'tok_0123456789abcdef',
      resourceId: 'ret08u3rv24htgh289g',
    };
    const live = async () => {
      const h = await start(engine);
      await h.store.channels.saveChannel({ ...CHANNEL, expiration: Date.now() + 3_600_000, createdAt: Date.now(), renewedAt: null, stoppedAt: null });
      return h;
    };
    const push = (h: EngineApp, headers: Record<string, string> = {}) =>
      request(h.app)
        .post('/calendar/google/notifications')
        .set({
          'X-Goog-Channel-ID': CHANNEL.id,
          'X-Goog-Channel-Token': CHANNEL.token,
          'X-Goog-Resource-ID': CHANNEL.resourceId,
          'X-Goog-Resource-State': 'exists',
          'X-Goog-Message-Number': '10',
          ...headers,
        });
    const jobs = async (h: EngineApp) => (await h.counts()).jobs;

    it.each([
      ['a tab in X-Goog-Resource-ID', { 'X-Goog-Resource-ID': `ret08u3\trv24htgh289g` }, 'x-goog-resource-id holds a control character'],
      [
        'a C1 control (U+0085, sent as the byte 0x85) in X-Goog-Channel-Token',
        { 'X-Goog-Channel-Token': `${CHANNEL.token}\u0085` },
        'x-goog-channel-token holds a control character',
      ],
      [
        'a tab in a header the bridge does not read (X-Goog-Resource-URI)',
        { 'X-Goog-Resource-URI': 'https://www.googleapis.com/calendar/v3/calendars/x\ty' },
        'x-goog-resource-uri holds a control character',
      ],
    ])('when %s reaches the app, then 400 naming the header and no sync job', async (_case, headers, message) => {
      const h = await live();

      const response = await push(h, headers);

      expect(response.status).toBe(400);
      expect(response.body.error).toEqual({ code: 'invalid_notification', message });
      expect(await jobs(h)).toBe(0);
    });

    it('when a raw NUL is in a header, then Node answers 400 before the app runs, and no sync job is stored', async () => {
      const h = await live();
      const server = await listenOnLoopback(h.app);
      try {
        const socket = connect(server.port, '127.0.0.1');
        const head = [
          'POST /calendar/google/notifications HTTP/1.1',
          'Host: bridge',
          `X-Goog-Channel-ID: ${CHANNEL.id}`,
          `X-Goog-Channel-Token: ${CHANNEL.token}\u0000`,
          'X-Goog-Resource-State: exists',
          'Content-Length: 0',
          'Connection: close',
        ].join('\r\n');
        socket.end(Buffer.from(`${head}\r\n\r\n`, 'latin1'));
        let reply = '';
        socket.on('data', (chunk: Buffer) => (reply += chunk.toString('latin1')));
        await once(socket, 'close');

        expect(reply.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
        expect(await jobs(h)).toBe(0);
        expect(h.logs.lines().filter((line) => line.message === 'request')).toEqual([]);
      } finally {
        await server.close();
      }
    });

    it('when the same notification arrives clean, then 200 and one sync job (the refusals were about the characters alone)', async () => {
      const h = await live();
      await push(h, { 'X-Goog-Resource-ID': `ret08u3\trv24htgh289g` });

      const response = await push(h);

      expect(response.status).toBe(200);
      expect(await jobs(h)).toBe(1);
    });
  });
}
