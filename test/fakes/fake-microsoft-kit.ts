import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';

import { ConfidentialClientApplication, type INetworkModule, type NetworkRequestOptions, type NetworkResponse } from '@azure/msal-node';
import express from 'express';
import { request } from 'undici';

import type { Cleanup } from '../support/cleanups.ts';
import { listenOnLoopback } from '../support/listen-on-loopback.ts';
import { type FakeMicrosoft, type FakeMicrosoftOptions, startFakeMicrosoft } from './fake-microsoft.ts';

/*
 * What the fake Microsoft's own tests share: the tenant and app they sign in as, a real msal-node
 * client on a recording network, plain HTTP calls to either server, and a subscriber on loopback.
 */

export const TENANT = '8f4b2c1e-5d3a-4e6f-9a7b-0c1d2e3f4a5b';
export const CLIENT = '3a1b5c7d-9e0f-4a2b-8c4d-6e8f0a1b2c3d';
export const SECRET = 'Xy8Q~fake.secret-value_0123456789abcdef';
export const ANA = 'ana.rep@contoso.example';
export const GRAPH_SCOPE = 'https://graph.microsoft.com/.default';
export const CLIENT_PEM = readFileSync(new URL('./tls/client-cert.pem', import.meta.url), 'utf8');
export const CLIENT_KEY = /-----BEGIN PRIVATE KEY-----[\s\S]+?-----END PRIVATE KEY-----/.exec(CLIENT_PEM)![0];
export const CLIENT_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(CLIENT_PEM)![0];
export const TIMEOUTS = { headersTimeout: 15_000, bodyTimeout: 15_000 };

export type Json = Record<string, unknown>;

/** msal-node's network module over undici; it records every URL and refuses any host but the fake's. */
export function recordingNetwork(allowedOrigin: string) {
  const calls: string[] = [];
  const refused: string[] = [];
  const send = async <T>(method: 'GET' | 'POST', url: string, options?: NetworkRequestOptions): Promise<NetworkResponse<T>> => {
    calls.push(`${method} ${url}`);
    if (new URL(url).origin !== allowedOrigin) {
      refused.push(`${method} ${url}`);
      throw new Error(`test network refuses ${url}`);
    }
    const response = await request(url, { method, headers: options?.headers, body: options?.body, ...TIMEOUTS });
    const headers = Object.fromEntries(
      Object.entries(response.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : (value ?? '')]),
    );
    return { status: response.statusCode, headers, body: (await response.body.json()) as T };
  };
  const client: INetworkModule = {
    sendGetRequestAsync: <T>(url: string, options?: NetworkRequestOptions) => send<T>('GET', url, options),
    sendPostRequestAsync: <T>(url: string, options?: NetworkRequestOptions) => send<T>('POST', url, options),
  };
  return { client, calls, refused };
}

export function msalApp(fake: FakeMicrosoft, network: INetworkModule, credential: 'secret' | 'certificate', knownAuthorities = [fake.knownAuthority]) {
  const thumbprintSha256 = new X509Certificate(CLIENT_CERT).fingerprint256.replaceAll(':', '');
  return new ConfidentialClientApplication({
    auth: {
      clientId: CLIENT,
      authority: fake.authority,
      knownAuthorities,
      ...(credential === 'secret' ? { clientSecret: SECRET } : { clientCertificate: { thumbprintSha256, privateKey: CLIENT_KEY, x5c: CLIENT_CERT } }),
    },
    system: { networkClient: network },
  });
}

export async function call(
  url: string,
  init: { method?: 'GET' | 'POST' | 'PATCH' | 'DELETE'; token?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers['content-type'] = typeof init.body === 'string' ? 'application/x-www-form-urlencoded' : 'application/json';
  const response = await request(url, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
    ...TIMEOUTS,
  });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, body: (text === '' ? undefined : JSON.parse(text)) as Json };
}

export const tokenForm = (fields: Record<string, string>) =>
  new URLSearchParams({ grant_type: 'client_credentials', client_id: CLIENT, scope: GRAPH_SCOPE, ...fields }).toString();

export async function graphToken(fake: FakeMicrosoft): Promise<string> {
  const reply = await call(fake.tokenUrl, { method: 'POST', body: tokenForm({ client_secret: SECRET }) });
  return String(reply.body.access_token);
}

export const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

export async function subscribe(fake: FakeMicrosoft, token: string, notificationUrl: string, extra: Json = {}) {
  return call(`${fake.graphUrl}/subscriptions`, {
    method: 'POST',
    token,
    body: {
      changeType: 'created,updated,deleted',
      notificationUrl,
      resource: `/users/${ANA}/events`,
      expirationDateTime: inMinutes(4_000),
      clientState: 'state-secret',
      ...extra,
    },
  });
}

export const events = (body: Json) => body.value as Json[];

/** The fake and the subscriber, each closed by `cleanups` after the test. */
export function fakeMicrosoftKit(cleanups: Cleanup[]) {
  async function fakeMicrosoft(extra: Partial<FakeMicrosoftOptions> = {}): Promise<FakeMicrosoft> {
    const fake = await startFakeMicrosoft({
      tenantId: TENANT,
      clientId: CLIENT,
      clientSecret: SECRET,
      clientCertificatePem: CLIENT_PEM,
      mailboxes: [ANA],
      ...extra,
    });
    cleanups.push(() => fake.close());
    return fake;
  }

  /** A subscriber on loopback, as the bridge would be: it records what Graph sent and answers validation per its mode. */
  async function receiver(mode: 'echo' | 'html-escape' | 'json' | 'silent' = 'echo') {
    const received: Array<{ url: string; query: Json; contentType: string | undefined; body: string }> = [];
    const app = express();
    app.use(express.text({ type: () => true }));
    app.use((req, res) => {
      received.push({
        url: req.originalUrl,
        query: req.query as Json,
        contentType: req.headers['content-type'],
        body: typeof req.body === 'string' ? req.body : '',
      });
      const token = req.query.validationToken;
      if (typeof token !== 'string') return void res.status(202).end();
      if (mode === 'silent') return;
      if (mode === 'json') return void res.status(200).json(token);
      const answer = mode === 'echo' ? token : token.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
      res.status(200).type('text/plain').send(answer);
    });
    const server: Server = createServer(app);
    const { url } = await listenOnLoopback(server);
    cleanups.push(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });
    return { url, received };
  }

  return { fakeMicrosoft, receiver };
}
