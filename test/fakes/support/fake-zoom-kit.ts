import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

import { request } from 'undici';

import { cleanupAfterEach } from '../../support/cleanups.ts';
import { listenOnLoopback } from '../../support/listen-on-loopback.ts';
import { type FakeZoom, type FakeZoomOptions, startFakeZoom } from '../fake-zoom.ts';

/*
 * What the fake Zoom's own tests share: the app they sign in as, plain HTTP calls to the fake,
 * the path encoding of uuids, and a webhook receiver on loopback.
 */

export const ACCOUNT = 'D8cJuqWVQ623CI4Q8yQK0Q';
export const CLIENT = 'Fh2xQbLeTmWz0KqjYpNc7A';
export const SECRET = 'q1W2e3R4t5Y6u7I8o9P0aSdFgHjKlZxC';
export const WEBHOOK_SECRET = 'zoom-secret-token-123';
const TIMEOUTS = { headersTimeout: 15_000, bodyTimeout: 15_000 };

export type Json = Record<string, unknown>;

export async function call(url: string, init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string } = {}) {
  const response = await request(url, { method: init.method ?? 'GET', headers: init.headers, body: init.body, ...TIMEOUTS });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, body: (text === '' ? undefined : JSON.parse(text)) as Json };
}

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

export async function askToken(fake: FakeZoom, credentials = { id: CLIENT, secret: SECRET }, accountId = ACCOUNT) {
  return call(`${fake.oauthUrl}?grant_type=account_credentials&account_id=${encodeURIComponent(accountId)}`, {
    method: 'POST',
    headers: { authorization: basic(credentials.id, credentials.secret) },
  });
}

export async function accessToken(fake: FakeZoom): Promise<string> {
  return String((await askToken(fake)).body.access_token);
}

/** What the bridge must do with a uuid in a path (Zoom's rule); `once` forces single encoding, to show the fake refuses it. */
export function encodeUuid(uuid: string, mode: 'rule' | 'once' | 'twice' = 'rule') {
  const twice = mode === 'twice' || (mode === 'rule' && (uuid.startsWith('/') || uuid.includes('//')));
  return twice ? encodeURIComponent(encodeURIComponent(uuid)) : encodeURIComponent(uuid);
}

export const participantsOf = (fake: FakeZoom, token: string, pathUuid: string, query = 'page_size=300') =>
  call(`${fake.apiUrl}/past_meetings/${pathUuid}/participants?${query}`, { headers: { authorization: `Bearer ${token}` } });

/** Registers cleanup for the file: every fake and receiver it starts is closed after each test. */
export function useZoomKit() {
  const cleanups = cleanupAfterEach();

  async function fakeZoom(extra: Partial<FakeZoomOptions> = {}): Promise<FakeZoom> {
    const fake = await startFakeZoom({ accountId: ACCOUNT, clientId: CLIENT, clientSecret: SECRET, ...extra });
    cleanups.push(() => fake.close());
    return fake;
  }

  /** A webhook receiver on loopback, as the bridge would be: it records what arrived and answers URL validation correctly. */
  async function receiver() {
    const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
    const server: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        received.push({ headers: req.headers, body });
        const parsed = JSON.parse(body) as { event?: string; payload?: { plainToken?: string } };
        if (parsed.event !== 'endpoint.url_validation') return void res.writeHead(204).end();
        const plainToken = String(parsed.payload?.plainToken);
        const encryptedToken = createHmac('sha256', WEBHOOK_SECRET).update(plainToken).digest('hex');
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ plainToken, encryptedToken }));
      });
    });
    const { url, close } = await listenOnLoopback(server);
    cleanups.push(close);
    return { url: `${url}/webhooks/zoom`, received };
  }

  return { fakeZoom, receiver };
}
