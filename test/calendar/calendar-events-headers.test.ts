import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';

import { type EngineApp, startEngineApp } from '../support/app-harness.ts';
import { ENGINES } from '../support/real-store.ts';
import { signedHeaders, WEBHOOK_SECRET } from './support/signed-events.ts';

/*
 * POST /calendar/events reads the Standard Webhooks headers under their `webhook-*` names or the
 * `svix-*` names Svix sends (`webhook-*` win when both come), answers a missing or malformed
 * header as such (400 naming it) rather than as a bad signature, decodes signature entries
 * strictly, and takes JSON in UTF-8 only.
 */

const SECRET = WEBHOOK_SECRET;
const OTHER = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
const NOTHING = { messages: 0, events: 0, jobs: 0, calendars: 0 };
const BODY = JSON.stringify({
  version: 1,
  id: 'AAMkAGI2TG93AAA=',
  sourceType: 'MS_TEAMS',
  start: '2026-03-02T16:00:00Z',
  end: '2026-03-02T16:30:00Z',
  organizer: { email: 'ana.rep@example.com' },
});

type Headers = Record<string, string>;

/** A complete, correctly signed set of headers under `prefix` for BODY. */
const signed = (prefix: 'webhook' | 'svix', id = 'msg_2f8c', secret = SECRET): Headers => signedHeaders(BODY, { prefix, id, secret });
const without = (headers: Headers, name: string): Headers => Object.fromEntries(Object.entries(headers).filter(([key]) => key !== name));

let harness: EngineApp | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

for (const { engine, skip, title } of ENGINES) {
  describe.skipIf(skip)(`POST /calendar/events headers and content type ${title}`, () => {
    const start = async () => (harness = await startEngineApp(engine, { env: { CALENDAR_WEBHOOK_SECRETS: SECRET } }));
    const post = (h: EngineApp, headers: Headers, contentType = 'application/json') =>
      request(h.app).post('/calendar/events').set('Content-Type', contentType).set(headers).send(BODY);

    it('when a delivery is signed under the svix- names, then it is stored under its svix-id, and a retry is a duplicate', async () => {
      const h = await start();
      const headers = signed('svix');

      const first = await post(h, headers);
      const retry = await post(h, headers);

      expect(first.status).toBe(202);
      expect(first.body).toMatchObject({ status: 'accepted', webhookId: 'msg_2f8c' });
      expect(retry.status).toBe(200);
      expect(retry.body).toEqual({ status: 'duplicate', webhookId: 'msg_2f8c' });
      expect(await h.counts()).toMatchObject({ events: 1, jobs: 1 });
      const [event] = await h.store.listEvents({ limit: 10 });
      expect(event).toMatchObject({ senderId: 'msg_2f8c', dedupeKey: 'calendar:msg_2f8c' });
    });

    it('when both sets come and the webhook- set is the signed one, then it is accepted under the webhook-id', async () => {
      const h = await start();

      const response = await post(h, { ...signed('webhook', 'msg_webhook'), 'svix-id': 'msg_svix', 'svix-timestamp': '1', 'svix-signature': 'v1,garbage' });

      expect(response.status).toBe(202);
      expect(response.body.webhookId).toBe('msg_webhook');
    });

    it('when both sets come and only the svix- set is signed, then 401: the webhook- set wins and nothing is stored', async () => {
      const h = await start();

      const response = await post(h, { ...signed('svix'), ...signed('webhook', 'msg_2f8c', OTHER) });

      expect(response.status).toBe(401);
      expect(response.body.error).toEqual({ code: 'invalid_signature', message: 'no webhook-signature entry matches a configured secret' });
      expect(await h.counts()).toEqual(NOTHING);
    });

    it.each([
      ['webhook', 'webhook-id'],
      ['webhook', 'webhook-timestamp'],
      ['webhook', 'webhook-signature'],
      ['svix', 'svix-signature'],
      ['svix', 'svix-timestamp'],
    ] as const)('when a %s- delivery has no %s header, then 400 saying it is missing, not that a signature is wrong', async (prefix, header) => {
      const h = await start();

      const response = await post(h, without(signed(prefix), header));

      expect(response.status).toBe(400);
      expect(response.body.error).toEqual({ code: 'missing_header', message: `missing ${header} header` });
      expect(await h.counts()).toEqual(NOTHING);
    });

    it('when no signature header comes at all, then 400 names the first webhook- header', async () => {
      const h = await start();

      const response = await post(h, {});

      expect(response.status).toBe(400);
      expect(response.body.error).toEqual({ code: 'missing_header', message: 'missing webhook-id header' });
    });

    it('when the timestamp is not unix seconds, then 400 invalid_header and nothing is stored', async () => {
      const h = await start();

      const response = await post(h, { ...signed('webhook'), 'webhook-timestamp': '2026-03-02T16:00:00Z' });

      expect(response.status).toBe(400);
      expect(response.body.error).toEqual({ code: 'invalid_header', message: 'webhook-timestamp must be unix seconds' });
      expect(await h.counts()).toEqual(NOTHING);
    });

    it.each([
      ['the right signature under version v1a', (sig: string) => `v1a,${sig}`],
      ['the right signature without its padding', (sig: string) => `v1,${sig.slice(0, -1)}`],
      ['the right signature with junk appended to the entry', (sig: string) => `v1,${sig},junk`],
    ])('when the header holds %s, then 401 and nothing is stored', async (_case, rewrite) => {
      const h = await start();
      const headers = signed('webhook');
      const sig = headers['webhook-signature']!.slice('v1,'.length);

      const response = await post(h, { ...headers, 'webhook-signature': rewrite(sig) });

      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe('invalid_signature');
      expect(await h.counts()).toEqual(NOTHING);
    });

    it('when the right v1 entry comes after entries of other versions and keys, then it is accepted', async () => {
      const h = await start();
      const headers = signed('webhook');

      const response = await post(h, { ...headers, 'webhook-signature': `v1a,AAAA v1,${Buffer.alloc(32).toString('base64')} ${headers['webhook-signature']}` });

      expect(response.status).toBe(202);
    });

    it.each(['application/json; charset=iso-8859-1', 'application/json; charset=UTF-16', 'application/json; charset="windows-1252"'])(
      'when the Content-Type is %j, then 415 unsupported_charset and nothing is stored',
      async (contentType) => {
        const h = await start();

        const response = await post(h, signed('webhook'), contentType);

        expect(response.status).toBe(415);
        expect(response.body.error.code).toBe('unsupported_charset');
        expect(response.body.error.message).toMatch(/^charset ".+" is not accepted; send UTF-8$/);
        expect(await h.counts()).toEqual(NOTHING);
      },
    );

    it.each(['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON; CHARSET=UTF-8', 'application/json;charset="UTF-8"'])(
      'when the Content-Type is %j, then the event is accepted',
      async (contentType) => {
        const h = await start();

        const response = await post(h, signed('webhook'), contentType);

        expect(response.status).toBe(202);
      },
    );
  });
}
