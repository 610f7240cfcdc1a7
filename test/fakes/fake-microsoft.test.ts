import { execFile } from 'node:child_process';
import { createHash, sign, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { promisify } from 'node:util';

import { ConfidentialClientApplication, type INetworkModule, type NetworkRequestOptions, type NetworkResponse } from '@azure/msal-node';
import express from 'express';
import { request } from 'undici';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

import { listenOnLoopback } from '../support/listen-on-loopback.ts';
import { type FakeMicrosoft, type FakeMicrosoftOptions, startFakeMicrosoft } from './fake-microsoft.ts';
import { TEST_KEY_FILE, trustTestCertificate } from './trust-test-ca.ts';

/*
 * The fake Microsoft is the yardstick of the Microsoft 365 calendar tests, so its own behaviour is
 * pinned here: a real msal-node client signs in against it (secret and certificate) without one
 * request leaving loopback, and Graph's subscription validation, delta rounds, throttling and
 * notifications behave as the documentation (docs/protocols.md §7) says.
 */

const TENANT = '8f4b2c1e-5d3a-4e6f-9a7b-0c1d2e3f4a5b';
const CLIENT = '3a1b5c7d-9e0f-4a2b-8c4d-6e8f0a1b2c3d';
const SECRET = 'Xy8Q~fake.secret-value_0123456789abcdef';
const ANA = 'ana.rep@contoso.example';
const GRAPH_SCOPE = 'https://graph.microsoft.com/.default';
const CLIENT_PEM = readFileSync(new URL('./tls/client-cert.pem', import.meta.url), 'utf8');
const CLIENT_KEY = /-----BEGIN PRIVATE KEY-----[\s\S]+?-----END PRIVATE KEY-----/.exec(CLIENT_PEM)![0];
const CLIENT_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(CLIENT_PEM)![0];
const TIMEOUTS = { headersTimeout: 15_000, bodyTimeout: 15_000 };

type Json = Record<string, unknown>;

beforeAll(() => trustTestCertificate());

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

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

/** msal-node's network module over undici; it records every URL and refuses any host but the fake's. */
function recordingNetwork(allowedOrigin: string) {
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

function msalApp(fake: FakeMicrosoft, network: INetworkModule, credential: 'secret' | 'certificate', knownAuthorities = [fake.knownAuthority]) {
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

async function call(
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

const tokenForm = (fields: Record<string, string>) =>
  new URLSearchParams({ grant_type: 'client_credentials', client_id: CLIENT, scope: GRAPH_SCOPE, ...fields }).toString();

async function graphToken(fake: FakeMicrosoft): Promise<string> {
  const reply = await call(fake.tokenUrl, { method: 'POST', body: tokenForm({ client_secret: SECRET }) });
  return String(reply.body.access_token);
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

const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

async function subscribe(fake: FakeMicrosoft, token: string, notificationUrl: string, extra: Json = {}) {
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

const events = (body: Json) => body.value as Json[];

describe('trustTestCertificate', () => {
  it('when a fresh process trusts the test certificate, then undici request() and fetch reach an HTTPS server using it, and a second call adds nothing', async () => {
    // A child process, so the trust store starts as Node ships it (this file trusts the certificate in beforeAll).
    const script = `
      import { readFileSync } from 'node:fs';
      import { createServer } from 'node:https';
      import tls from 'node:tls';
      import { request } from 'undici';
      const { trustTestCertificate, TEST_CERT_FILE, TEST_KEY_FILE } = await import(${JSON.stringify(new URL('./trust-test-ca.ts', import.meta.url).href)});
      const server = createServer({ cert: readFileSync(TEST_CERT_FILE), key: readFileSync(TEST_KEY_FILE) }, (_req, res) => res.end('ok'));
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = 'https://127.0.0.1:' + server.address().port + '/';
      const before = await request(url, { headersTimeout: 5000 }).then(() => 'reached', (error) => error.code);
      trustTestCertificate();
      const count = tls.getCACertificates('default').length;
      trustTestCertificate();
      const again = tls.getCACertificates('default').length;
      const viaUndici = await request(url, { headersTimeout: 5000 }).then(async (reply) => reply.statusCode + ' ' + (await reply.body.text()));
      const viaFetch = (await fetch(url, { signal: AbortSignal.timeout(5000) })).status;
      server.closeAllConnections();
      server.close();
      console.log(JSON.stringify({ before, viaUndici, viaFetch, addedOnce: count === again }));
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { timeout: 20_000 });

    expect(JSON.parse(stdout)).toEqual({ before: 'DEPTH_ZERO_SELF_SIGNED_CERT', viaUndici: '200 ok', viaFetch: 200, addedOnce: true });
  });
});

describe('fake Microsoft login: a real msal-node ConfidentialClientApplication', () => {
  it('when msal asks with a client secret, then the fake issues a Graph token and every request msal made went to the fake login host', async () => {
    // Arrange
    const fake = await fakeMicrosoft();
    const network = recordingNetwork(fake.loginUrl);

    // Act
    const result = await msalApp(fake, network.client, 'secret').acquireTokenByClientCredential({ scopes: [GRAPH_SCOPE] });

    // Assert: OpenID metadata first, then the token endpoint the metadata named; nothing else.
    expect(network.refused).toEqual([]);
    expect(network.calls).toHaveLength(2);
    expect(network.calls[0]).toBe(`GET ${fake.authority}/v2.0/.well-known/openid-configuration`);
    expect(network.calls[1]).toMatch(new RegExp(`^POST ${fake.tokenUrl.replace(/[.?]/g, '\\$&')}\\?client-request-id=[0-9a-f-]{36}$`));
    expect(fake.tokensIssued).toEqual([expect.objectContaining({ scope: GRAPH_SCOPE, credential: 'secret' })]);
    expect(result?.accessToken).toBe(fake.tokensIssued[0]?.accessToken);
    expect(result?.tokenType).toBe('Bearer');
    expect(fake.requestsOf('token')[0]?.body).toMatchObject({ grant_type: 'client_credentials', client_id: CLIENT, client_secret: SECRET, scope: GRAPH_SCOPE });
    expect((await call(`${fake.graphUrl}/subscriptions`, { token: result!.accessToken })).status).toBe(200);
  });

  it('when msal signs a client assertion with the client certificate, then the fake verifies it (PS256, x5t#S256) and issues a token', async () => {
    // Arrange
    const fake = await fakeMicrosoft({ clientSecret: undefined });
    const network = recordingNetwork(fake.loginUrl);

    // Act
    const result = await msalApp(fake, network.client, 'certificate').acquireTokenByClientCredential({ scopes: [GRAPH_SCOPE] });

    // Assert
    expect(network.refused).toEqual([]);
    expect(network.calls.map((line) => line.split('?')[0])).toEqual([`GET ${fake.authority}/v2.0/.well-known/openid-configuration`, `POST ${fake.tokenUrl}`]);
    expect(result?.accessToken).toBe(fake.tokensIssued[0]?.accessToken);
    expect(fake.tokensIssued).toEqual([expect.objectContaining({ scope: GRAPH_SCOPE, credential: 'certificate' })]);
    const form = fake.requestsOf('token')[0]?.body as Record<string, string>;
    expect(form.client_assertion_type).toBe('urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
    expect(form.client_secret).toBeUndefined();
    const [header, claims] = form
      .client_assertion!.split('.')
      .slice(0, 2)
      .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Json);
    expect(header).toMatchObject({ alg: 'PS256', 'x5t#S256': createHash('sha256').update(new X509Certificate(CLIENT_CERT).raw).digest('base64url') });
    expect(claims).toMatchObject({ aud: fake.tokenUrl, iss: CLIENT, sub: CLIENT });
  });

  it('when msal uses its default network client (global fetch), then it reaches the fake too, once the test certificate is trusted', async () => {
    const fake = await fakeMicrosoft();
    const app = new ConfidentialClientApplication({
      auth: { clientId: CLIENT, clientSecret: SECRET, authority: fake.authority, knownAuthorities: [fake.knownAuthority] },
    });

    const result = await app.acquireTokenByClientCredential({ scopes: [GRAPH_SCOPE] });

    expect(result?.accessToken).toBe(fake.tokensIssued[0]?.accessToken);
    expect(fake.requests.map((item) => [item.method, item.target, item.status])).toEqual([
      ['GET', 'metadata', 200],
      ['POST', 'token', 200],
    ]);
  });

  it('when the authority names the tenant by domain and privateKey is the whole certificate file, then msal signs for that URL and the fake accepts it', async () => {
    const fake = await fakeMicrosoft({ tenantDomains: ['contoso.onmicrosoft.com'] });
    const network = recordingNetwork(fake.loginUrl);
    const thumbprintSha256 = new X509Certificate(CLIENT_PEM).fingerprint256.replaceAll(':', '');
    const app = new ConfidentialClientApplication({
      auth: {
        clientId: CLIENT,
        authority: `${fake.loginUrl}/contoso.onmicrosoft.com`,
        knownAuthorities: [fake.knownAuthority],
        clientCertificate: { thumbprintSha256, privateKey: CLIENT_PEM, x5c: CLIENT_PEM },
      },
      system: { networkClient: network.client },
    });

    const result = await app.acquireTokenByClientCredential({ scopes: [GRAPH_SCOPE] });

    expect(result?.accessToken).toBe(fake.tokensIssued[0]?.accessToken);
    expect(network.calls.map((line) => line.split('?')[0])).toEqual([
      `GET ${fake.loginUrl}/contoso.onmicrosoft.com/v2.0/.well-known/openid-configuration`,
      `POST ${fake.loginUrl}/contoso.onmicrosoft.com/oauth2/v2.0/token`,
    ]);
  });

  it('when msal asks twice, then the second answer comes from its cache; skipCache goes to the token endpoint again without a second metadata request', async () => {
    // Arrange
    const fake = await fakeMicrosoft();
    const network = recordingNetwork(fake.loginUrl);
    const app = msalApp(fake, network.client, 'secret');

    // Act
    await app.acquireTokenByClientCredential({ scopes: [GRAPH_SCOPE] });
    const cached = await app.acquireTokenByClientCredential({ scopes: [GRAPH_SCOPE] });
    await app.acquireTokenByClientCredential({ scopes: [GRAPH_SCOPE], skipCache: true });

    // Assert
    expect(cached?.fromCache).toBe(true);
    expect(fake.requestsOf('metadata')).toHaveLength(1);
    expect(fake.requestsOf('token')).toHaveLength(2);
  });

  it('when the client secret is wrong, then msal rejects with invalid_client AADSTS7000215 and no token is issued', async () => {
    const fake = await fakeMicrosoft({ clientSecret: 'the-right-one' });
    const network = recordingNetwork(fake.loginUrl);

    await expect(msalApp(fake, network.client, 'secret').acquireTokenByClientCredential({ scopes: [GRAPH_SCOPE] })).rejects.toThrow(
      /invalid_client.*AADSTS7000215/s,
    );

    expect(fake.requestsOf('token')[0]?.status).toBe(401);
    expect(fake.tokensIssued).toEqual([]);
  });

  it('when knownAuthorities names the host without its port, then msal asks login.microsoftonline.com for instance discovery (refused here) and fails', async () => {
    const fake = await fakeMicrosoft();
    const network = recordingNetwork(fake.loginUrl);

    await expect(msalApp(fake, network.client, 'secret', ['127.0.0.1']).acquireTokenByClientCredential({ scopes: [GRAPH_SCOPE] })).rejects.toThrow(
      /endpoints_resolution_error/,
    );

    expect(network.refused).toEqual([expect.stringMatching(/^GET https:\/\/login\.microsoftonline\.com\/common\/discovery\/instance\?api-version=1\.1&/)]);
    expect(fake.requests).toEqual([]);
  });

  it('when the tenant is unknown, then the metadata answers 400 AADSTS90002 and msal fails before any token request', async () => {
    const fake = await fakeMicrosoft();
    const network = recordingNetwork(fake.loginUrl);
    const app = new ConfidentialClientApplication({
      auth: { clientId: CLIENT, clientSecret: SECRET, authority: `${fake.loginUrl}/not-a-tenant`, knownAuthorities: [fake.knownAuthority] },
      system: { networkClient: network.client },
    });

    await expect(app.acquireTokenByClientCredential({ scopes: [GRAPH_SCOPE] })).rejects.toThrow();

    expect(fake.requests.map((item) => [item.target, item.status])).toEqual([['metadata', 400]]);
    expect(network.refused).toEqual([]);
  });

  it('when the token endpoint answers 429 with Retry-After, then msal throttles itself: the next call fails without a request', async () => {
    const fake = await fakeMicrosoft();
    fake.fail('token', 429, { headers: { 'retry-after': '30' } });
    const app = msalApp(fake, recordingNetwork(fake.loginUrl).client, 'secret');

    await expect(app.acquireTokenByClientCredential({ scopes: [GRAPH_SCOPE] })).rejects.toThrow();
    await expect(app.acquireTokenByClientCredential({ scopes: [GRAPH_SCOPE] })).rejects.toThrow();

    expect(fake.requestsOf('token').map((item) => item.status)).toEqual([429]);
  });
});

describe('fake Microsoft login: the token endpoint itself', () => {
  it('when the tenant is unknown, then 400 invalid_request AADSTS90002', async () => {
    const fake = await fakeMicrosoft();

    const reply = await call(`${fake.loginUrl}/contoso.invalid/oauth2/v2.0/token`, { method: 'POST', body: tokenForm({ client_secret: SECRET }) });

    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ error: 'invalid_request', error_codes: [90002] });
    expect(String(reply.body.error_description)).toMatch(/^AADSTS90002: Tenant 'contoso.invalid' not found/);
  });

  it('when the scope lacks /.default, then 400 invalid_scope; when no credential is sent, then 401 invalid_client', async () => {
    const fake = await fakeMicrosoft();

    const badScope = await call(fake.tokenUrl, { method: 'POST', body: tokenForm({ scope: 'Calendars.Read', client_secret: SECRET }) });
    const noCredential = await call(fake.tokenUrl, { method: 'POST', body: tokenForm({}) });

    expect(badScope).toMatchObject({ status: 400, body: { error: 'invalid_scope', error_codes: [1002012] } });
    expect(noCredential).toMatchObject({ status: 401, body: { error: 'invalid_client', error_codes: [7000218] } });
    expect(fake.tokensIssued).toEqual([]);
  });

  it('when an assertion is RS256 with a SHA-1 x5t, then it is accepted; expired, for another audience, or signed by another key, then 401 invalid_client', async () => {
    const fake = await fakeMicrosoft();
    const now = Math.floor(Date.now() / 1000);
    const raw = new X509Certificate(CLIENT_CERT).raw;
    const assertion = (claims: Json, key = CLIENT_KEY) => {
      const header = Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'JWT', x5t: createHash('sha1').update(raw).digest('base64url') })).toString('base64url');
      const payload = Buffer.from(JSON.stringify({ aud: fake.tokenUrl, iss: CLIENT, sub: CLIENT, nbf: now, exp: now + 600, jti: 'j', ...claims })).toString(
        'base64url',
      );
      return `${header}.${payload}.${sign('RSA-SHA256', Buffer.from(`${header}.${payload}`), key).toString('base64url')}`;
    };
    const post = (jwt: string) =>
      call(fake.tokenUrl, {
        method: 'POST',
        body: tokenForm({ client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: jwt }),
      });

    const good = await post(assertion({}));
    const expired = await post(assertion({ exp: now - 10 }));
    const otherAudience = await post(assertion({ aud: 'https://login.microsoftonline.com/common/oauth2/v2.0/token' }));
    const otherKey = await post(assertion({}, readFileSync(TEST_KEY_FILE, 'utf8')));

    expect(good).toMatchObject({ status: 200, body: { token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599 } });
    expect(expired).toMatchObject({ status: 401, body: { error: 'invalid_client', error_codes: [700024] } });
    expect(otherAudience).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    expect(otherKey).toMatchObject({ status: 401, body: { error: 'invalid_client', error_codes: [700027] } });
    expect(fake.tokensIssued.map((token) => token.credential)).toEqual(['certificate']);
  });
});

describe('fake Microsoft Graph: authorisation', () => {
  it('when a call has no token, an unknown one, an expired one or one for another resource, then 401 InvalidAuthenticationToken', async () => {
    const fake = await fakeMicrosoft();
    const otherResource = await call(fake.tokenUrl, { method: 'POST', body: tokenForm({ scope: 'api://other-app/.default', client_secret: SECRET }) });
    const token = await graphToken(fake);

    const none = await call(`${fake.graphUrl}/subscriptions`);
    const unknown = await call(`${fake.graphUrl}/subscriptions`, { token: 'forged' });
    const wrongAudience = await call(`${fake.graphUrl}/subscriptions`, { token: String(otherResource.body.access_token) });
    const fine = await call(`${fake.graphUrl}/subscriptions`, { token });
    fake.expireAccessTokens();
    const expired = await call(`${fake.graphUrl}/subscriptions`, { token });

    for (const reply of [none, unknown, wrongAudience, expired])
      expect(reply).toMatchObject({ status: 401, body: { error: { code: 'InvalidAuthenticationToken' } } });
    expect(expired.body).toMatchObject({ error: { message: 'Lifetime validation failed, the token is expired.' } });
    expect(fine).toMatchObject({ status: 200, body: { value: [] } });
    expect(fine.headers['content-type']).toMatch(/^application\/json;odata\.metadata=minimal/);
  });
});

describe('fake Microsoft Graph: subscriptions', () => {
  it('when the endpoint echoes the decoded token as text/plain, then 201 with the subscription, after one validation request per URL', async () => {
    // Arrange
    const fake = await fakeMicrosoft();
    const token = await graphToken(fake);
    const bridge = await receiver('echo');

    // Act
    const reply = await subscribe(fake, token, `${bridge.url}/ms/notifications`, { lifecycleNotificationUrl: `${bridge.url}/ms/lifecycle` });

    // Assert: the reply
    expect(reply.status).toBe(201);
    const id = String(reply.body.id);
    expect(reply.body).toEqual({
      '@odata.context': `${fake.graphUrl}/$metadata#subscriptions/$entity`,
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      resource: `/users/${ANA}/events`,
      applicationId: CLIENT,
      changeType: 'created,updated,deleted',
      clientState: 'state-secret',
      notificationUrl: `${bridge.url}/ms/notifications`,
      notificationQueryOptions: null,
      lifecycleNotificationUrl: `${bridge.url}/ms/lifecycle`,
      expirationDateTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z$/),
      creatorId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      includeResourceData: false,
      latestSupportedTlsVersion: 'v1_2',
      encryptionCertificate: null,
      encryptionCertificateId: null,
      notificationUrlAppId: null,
    });
    // Assert: what Graph sent — an empty text/plain POST, the token form-encoded (`+` for spaces) in the URL.
    expect(bridge.received.map((item) => item.url.split('?')[0])).toEqual(['/ms/notifications', '/ms/lifecycle']);
    for (const item of bridge.received) {
      expect(item.contentType).toBe('text/plain; charset=utf-8');
      expect(item.body).toBe('');
      expect(item.url).toMatch(
        /\?validationToken=Validation%3a\+Testing\+client\+application\+reachability\+for\+subscription\+Request-Id%3a\+[0-9a-f-]{36}\+%3c%26%3e$/,
      );
      expect(item.query.validationToken).toMatch(/^Validation: Testing client application reachability for subscription Request-Id: [0-9a-f-]{36} <&>$/);
    }
    expect(fake.validations.map((attempt) => attempt.problem)).toEqual([undefined, undefined]);
    // Assert: stored state
    expect(fake.subscriptions.get(id)).toMatchObject({ mailbox: ANA, userId: fake.userIdOf(ANA), deleted: false, clientState: 'state-secret' });
  });

  it('when the endpoint HTML-escapes the token, then 400 ValidationError and no subscription is stored', async () => {
    const fake = await fakeMicrosoft();
    const bridge = await receiver('html-escape');

    const reply = await subscribe(fake, await graphToken(fake), `${bridge.url}/ms/notifications`);

    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({
      error: { code: 'ValidationError', message: 'Subscription validation request failed. Response must exactly match validationToken query parameter.' },
    });
    expect(fake.subscriptions.size).toBe(0);
  });

  it('when the endpoint answers JSON, or does not answer in time, then 400 ValidationError', async () => {
    const fake = await fakeMicrosoft({ validationTimeoutMs: 300 });
    const token = await graphToken(fake);

    const json = await subscribe(fake, token, `${(await receiver('json')).url}/n`);
    const silent = await subscribe(fake, token, `${(await receiver('silent')).url}/n`);

    expect(json.body).toMatchObject({ error: { code: 'ValidationError', message: expect.stringContaining('text/plain') } });
    expect(silent.body).toMatchObject({ error: { code: 'ValidationError', message: 'Subscription validation request timeout.' } });
    expect(fake.subscriptions.size).toBe(0);
  });

  it('when the resource, the expiration or the clientState is wrong, then Graph’s 4xx and no validation request is sent', async () => {
    const fake = await fakeMicrosoft();
    const token = await graphToken(fake);
    const bridge = await receiver('echo');

    const unknownUser = await subscribe(fake, token, bridge.url, { resource: '/users/nobody@contoso.example/events' });
    const tooLong = await subscribe(fake, token, bridge.url, { expirationDateTime: inMinutes(10_081) });
    const past = await subscribe(fake, token, bridge.url, { expirationDateTime: inMinutes(-1) });
    const bigState = await subscribe(fake, token, bridge.url, { clientState: 'x'.repeat(129) });

    expect(unknownUser).toMatchObject({ status: 404, body: { error: { code: 'ResourceNotFound' } } });
    for (const reply of [tooLong, past])
      expect(reply).toMatchObject({
        status: 400,
        body: { error: { code: 'InvalidRequest', message: 'Subscription expiration can only be 10080 minutes in the future.' } },
      });
    expect(bigState).toMatchObject({ status: 400, body: { error: { code: 'InvalidRequest' } } });
    expect(bridge.received).toEqual([]);
  });

  it('when the expiration is under 45 minutes, then Graph raises it to 45 minutes', async () => {
    const fake = await fakeMicrosoft();
    const bridge = await receiver('echo');

    const reply = await subscribe(fake, await graphToken(fake), bridge.url, { expirationDateTime: inMinutes(5), resource: `users/${ANA}/events` });

    expect(reply.status).toBe(201);
    expect(Date.parse(String(reply.body.expirationDateTime)) - Date.now()).toBeGreaterThan(44 * 60_000);
  });

  it('when a subscription is renewed, reauthorized and deleted, then 200, 200, 204; afterwards renew and delete answer 404', async () => {
    // Arrange
    const fake = await fakeMicrosoft();
    const token = await graphToken(fake);
    const created = await subscribe(fake, token, (await receiver('echo')).url);
    const url = `${fake.graphUrl}/subscriptions/${String(created.body.id)}`;
    const newExpiry = inMinutes(10_000);

    // Act
    const renewed = await call(url, { method: 'PATCH', token, body: { expirationDateTime: newExpiry } });
    const reauthorized = await call(`${url}/reauthorize`, { method: 'POST', token });
    const deleted = await call(url, { method: 'DELETE', token });
    const renewAgain = await call(url, { method: 'PATCH', token, body: { expirationDateTime: newExpiry } });
    const deleteAgain = await call(url, { method: 'DELETE', token });

    // Assert
    expect(renewed.status).toBe(200);
    expect(Date.parse(String(renewed.body.expirationDateTime))).toBe(Date.parse(newExpiry));
    expect(reauthorized).toMatchObject({ status: 200, body: undefined });
    expect(deleted).toMatchObject({ status: 204, body: undefined });
    for (const reply of [renewAgain, deleteAgain])
      expect(reply).toMatchObject({ status: 404, body: { error: { code: 'ResourceNotFound', message: 'The object was not found.' } } });
    expect(fake.subscriptions.get(String(created.body.id))).toMatchObject({ deleted: true, removedBy: 'client', renewals: 1, reauthorizations: 1 });
    expect(fake.requestsOf('renew').map((item) => item.status)).toEqual([200, 404]);
  });

  it('when failures are scripted, then the next calls of that target answer them (429 with Retry-After by default) and later calls pass', async () => {
    const fake = await fakeMicrosoft();
    const token = await graphToken(fake);
    const created = await subscribe(fake, token, (await receiver('echo')).url);
    const url = `${fake.graphUrl}/subscriptions/${String(created.body.id)}`;
    fake.fail('renew', 429, { times: 2 });
    fake.fail('delete', 503, { after: 1 });

    const renewals = [];
    for (let i = 0; i < 3; i += 1) renewals.push(await call(url, { method: 'PATCH', token, body: { expirationDateTime: inMinutes(100) } }));

    expect(renewals.map((reply) => reply.status)).toEqual([429, 429, 200]);
    expect(renewals[0]?.headers['retry-after']).toBe('1');
    expect(renewals[0]?.body).toMatchObject({ error: { code: 'TooManyRequests' } });
    expect((await call(url, { method: 'DELETE', token })).status).toBe(204);
  });
});

describe('fake Microsoft Graph: calendarView delta', () => {
  const WINDOW = 'startDateTime=2026-03-01T00:00:00Z&endDateTime=2026-03-08T00:00:00Z';
  const at = (day: number, hour: number) => ({ dateTime: `2026-03-0${day}T${String(hour).padStart(2, '0')}:00:00`, timeZone: 'UTC' });

  async function followRound(fake: FakeMicrosoft, token: string, first: string, headers: Record<string, string> = {}) {
    const pages: Json[] = [];
    let next: string | undefined = first;
    while (next !== undefined) {
      const reply = await call(next, { token, headers });
      expect(reply.status).toBe(200);
      pages.push(reply.body);
      next = reply.body['@odata.nextLink'] as string | undefined;
    }
    return { pages, items: pages.flatMap(events), deltaLink: String(pages.at(-1)?.['@odata.deltaLink']) };
  }

  it('when a round starts, then pages of the window’s events follow nextLinks to a deltaLink, every page with @odata.context', async () => {
    // Arrange: three events in the window, one before, one after.
    const fake = await fakeMicrosoft();
    const token = await graphToken(fake);
    const inside = [1, 3, 5].map((day) => fake.upsertEvent(ANA, { subject: `Day ${day}`, start: at(day, 9), end: at(day, 10) }).id);
    fake.upsertEvent(ANA, {
      subject: 'Before',
      start: { dateTime: '2026-02-20T09:00:00', timeZone: 'UTC' },
      end: { dateTime: '2026-02-20T10:00:00', timeZone: 'UTC' },
    });
    fake.upsertEvent(ANA, { subject: 'After', start: at(9, 9), end: at(9, 10) });

    // Act
    const round = await followRound(fake, token, `${fake.graphUrl}/users/${ANA}/calendarView/delta?${WINDOW}`);

    // Assert
    expect(round.pages.map((page) => events(page).length)).toEqual([2, 1]);
    expect(round.items.map((item) => item.id)).toEqual(inside);
    for (const page of round.pages) expect(page['@odata.context']).toBe(`${fake.graphUrl}/$metadata#Collection(event)`);
    expect(String(round.pages[0]?.['@odata.nextLink'])).toMatch(new RegExp(`^${fake.graphUrl}/users/${ANA}/calendarView/delta\\?\\$skiptoken=[\\w-]+$`));
    expect(round.deltaLink).toMatch(new RegExp(`^${fake.graphUrl}/users/${ANA}/calendarView/delta\\?\\$deltatoken=[\\w-]+$`));
    expect(round.items[0]).toMatchObject({
      '@odata.type': '#microsoft.graph.event',
      '@odata.etag': expect.stringMatching(/^W\/".+"$/),
      subject: 'Day 1',
      start: { dateTime: '2026-03-01T09:00:00.0000000', timeZone: 'UTC' },
      end: { dateTime: '2026-03-01T10:00:00.0000000', timeZone: 'UTC' },
      isAllDay: false,
      isCancelled: false,
      organizer: { emailAddress: { address: ANA } },
      attendees: [],
      onlineMeeting: null,
      iCalUId: expect.stringMatching(/^040000008200E00074C5B7101A82E008/),
      lastModifiedDateTime: expect.stringMatching(/\.\d{7}Z$/),
    });
  });

  it('when the deltaLink is followed after an edit, a new event and a deletion, then only those come back, the deletion as @removed', async () => {
    // Arrange
    const fake = await fakeMicrosoft({ pageSize: 10 });
    const token = await graphToken(fake);
    const [kept, edited, removed] = [1, 2, 3].map((day) => fake.upsertEvent(ANA, { subject: `Day ${day}`, start: at(day, 9), end: at(day, 10) }));
    const first = await followRound(fake, token, `${fake.graphUrl}/users/${ANA}/calendarView/delta?${WINDOW}`);
    const edit = fake.upsertEvent(ANA, { id: edited!.id, subject: 'Moved to the afternoon', start: at(2, 15), end: at(2, 16) });
    const added = fake.upsertEvent(ANA, { subject: 'New', start: at(4, 9), end: at(4, 10) });
    fake.deleteEvent(ANA, removed!.id);

    // Act
    const second = await followRound(fake, token, first.deltaLink);
    const third = await followRound(fake, token, second.deltaLink);

    // Assert
    expect(first.items).toHaveLength(3);
    expect(edit.lastModifiedDateTime > edited!.lastModifiedDateTime).toBe(true);
    expect(edit['@odata.etag']).not.toBe(edited!['@odata.etag']);
    expect(second.items).toEqual([
      expect.objectContaining({ id: edited!.id, subject: 'Moved to the afternoon', start: { dateTime: '2026-03-02T15:00:00.0000000', timeZone: 'UTC' } }),
      { '@odata.type': '#microsoft.graph.event', id: removed!.id, '@removed': { reason: 'deleted' } },
      expect.objectContaining({ id: added.id, subject: 'New' }),
    ]);
    expect(second.items.some((item) => item.id === kept!.id)).toBe(false);
    expect(third.items).toEqual([]);
  });

  it('when an event is written in Pacific time, then Graph returns it in UTC unless Prefer: outlook.timezone asks for a zone', async () => {
    const fake = await fakeMicrosoft();
    const token = await graphToken(fake);
    fake.upsertEvent(ANA, {
      subject: 'West coast',
      start: { dateTime: '2026-03-02T08:00:00', timeZone: 'Pacific Standard Time' },
      end: { dateTime: '2026-03-02T09:00:00', timeZone: 'Pacific Standard Time' },
    });
    const first = `${fake.graphUrl}/users/${ANA}/calendarView/delta?${WINDOW}`;

    const utc = await followRound(fake, token, first);
    const pacific = await followRound(fake, token, first, { prefer: 'outlook.timezone="Pacific Standard Time"' });

    expect(utc.items[0]).toMatchObject({ start: { dateTime: '2026-03-02T16:00:00.0000000', timeZone: 'UTC' }, originalStartTimeZone: 'Pacific Standard Time' });
    expect(pacific.items[0]).toMatchObject({ start: { dateTime: '2026-03-02T08:00:00.0000000', timeZone: 'Pacific Standard Time' } });
  });

  it('when the first call lacks the window, then 400 ErrorInvalidParameter; Prefer: odata.maxpagesize sets the page size', async () => {
    const fake = await fakeMicrosoft();
    const token = await graphToken(fake);
    for (const day of [1, 2, 3]) fake.upsertEvent(ANA, { start: at(day, 9), end: at(day, 10) });

    const noWindow = await call(`${fake.graphUrl}/users/${ANA}/calendarView/delta?startDateTime=2026-03-01T00:00:00Z`, { token });
    const onePerPage = await followRound(fake, token, `${fake.graphUrl}/users/${ANA}/calendarView/delta?${WINDOW}`, { prefer: 'odata.maxpagesize=1' });
    const unknownUser = await call(`${fake.graphUrl}/users/nobody@contoso.example/calendarView/delta?${WINDOW}`, { token });

    expect(noWindow).toMatchObject({ status: 400, body: { error: { code: 'ErrorInvalidParameter' } } });
    expect(onePerPage.pages.map((page) => events(page).length)).toEqual([1, 1, 1]);
    expect(unknownUser).toMatchObject({ status: 404, body: { error: { code: 'ErrorInvalidUser' } } });
  });

  it('when the delta tokens are invalidated, then a stored deltaLink and a pending nextLink answer 410 Gone syncStateNotFound', async () => {
    const fake = await fakeMicrosoft({ pageSize: 1 });
    const token = await graphToken(fake);
    for (const day of [1, 2]) fake.upsertEvent(ANA, { start: at(day, 9), end: at(day, 10) });
    const round = await followRound(fake, token, `${fake.graphUrl}/users/${ANA}/calendarView/delta?${WINDOW}`);
    const firstPage = await call(`${fake.graphUrl}/users/${ANA}/calendarView/delta?${WINDOW}`, { token });

    fake.invalidateDeltaTokens(ANA);
    const staleDelta = await call(round.deltaLink, { token });
    const staleNext = await call(String(firstPage.body['@odata.nextLink']), { token });
    const fresh = await call(`${fake.graphUrl}/users/${ANA}/calendarView/delta?${WINDOW}`, { token });

    for (const reply of [staleDelta, staleNext]) expect(reply).toMatchObject({ status: 410, body: { error: { code: 'syncStateNotFound' } } });
    expect(fresh.status).toBe(200);
  });

  it('when delta calls for one mailbox overlap, then maxConcurrentRequests counts them; over concurrencyLimit one gets 429 ApplicationThrottled', async () => {
    const fake = await fakeMicrosoft({ latencyMs: 150, concurrencyLimit: 3 });
    const token = await graphToken(fake);
    const url = `${fake.graphUrl}/users/${ANA}/calendarView/delta?${WINDOW}`;

    const replies = await Promise.all([1, 2, 3, 4].map(() => call(url, { token })));

    expect(fake.maxConcurrentRequests(ANA)).toBe(4);
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 200, 200, 429]);
    const throttled = replies.find((reply) => reply.status === 429);
    expect(throttled?.headers['retry-after']).toBe('1');
    expect(throttled?.body).toMatchObject({ error: { code: 'ApplicationThrottled' } });
  });

  it('when a delta failure is scripted with Retry-After, then that call answers it and the next one passes', async () => {
    const fake = await fakeMicrosoft();
    const token = await graphToken(fake);
    fake.fail('delta', 503, { headers: { 'retry-after': '2' } });
    const url = `${fake.graphUrl}/users/${ANA}/calendarView/delta?${WINDOW}`;

    const failed = await call(url, { token });
    const passed = await call(url, { token });

    expect(failed).toMatchObject({ status: 503, body: { error: { code: 'ServiceUnavailable' } } });
    expect(failed.headers['retry-after']).toBe('2');
    expect(passed.status).toBe(200);
  });
});

describe('fake Microsoft Graph: notifications to the bridge', () => {
  it('when a change is notified, then the bridge receives Graph’s documented body as application/json; charset=utf-8', async () => {
    // Arrange
    const fake = await fakeMicrosoft();
    const bridge = await receiver('echo');
    const created = await subscribe(fake, await graphToken(fake), `${bridge.url}/ms/notifications`);
    const subscriptionId = String(created.body.id);
    const event = fake.upsertEvent(ANA, { subject: 'Pricing review' });
    bridge.received.length = 0;

    // Act
    const delivery = await fake.notify(subscriptionId, 'updated', event.id);

    // Assert
    expect(delivery).toMatchObject({ status: 202, body: '' });
    expect(delivery.ms).toBeGreaterThanOrEqual(0);
    expect(bridge.received).toHaveLength(1);
    expect(bridge.received[0]?.contentType).toBe('application/json; charset=utf-8');
    const userId = fake.userIdOf(ANA);
    expect(JSON.parse(bridge.received[0]!.body)).toEqual({
      value: [
        {
          subscriptionId,
          subscriptionExpirationDateTime: created.body.expirationDateTime,
          changeType: 'updated',
          resource: `Users/${userId}/Events/${event.id}`,
          resourceData: {
            '@odata.type': '#Microsoft.Graph.Event',
            '@odata.id': `Users/${userId}/Events/${event.id}`,
            '@odata.etag': event['@odata.etag'],
            id: event.id,
          },
          clientState: 'state-secret',
          tenantId: TENANT,
        },
      ],
    });
  });

  it('when items of two subscriptions are batched, then one POST carries both; a forged clientState goes out as given', async () => {
    const fake = await fakeMicrosoft();
    const bridge = await receiver('echo');
    const token = await graphToken(fake);
    const first = String((await subscribe(fake, token, `${bridge.url}/n`)).body.id);
    const second = String((await subscribe(fake, token, `${bridge.url}/n`, { clientState: 'other-state' })).body.id);
    bridge.received.length = 0;

    await fake.notifyBatch([
      { subscriptionId: first, changeType: 'created', eventId: 'AAMkAD-one' },
      { subscriptionId: second, changeType: 'deleted', eventId: 'AAMkAD-two', clientState: 'forged' },
    ]);

    const body = JSON.parse(bridge.received[0]!.body) as { value: Json[] };
    expect(bridge.received).toHaveLength(1);
    expect(body.value.map((item) => [item.subscriptionId, item.changeType, item.clientState])).toEqual([
      [first, 'created', 'state-secret'],
      [second, 'deleted', 'forged'],
    ]);
  });

  it('when Graph sends subscriptionRemoved to the lifecycle URL, then the body is Graph’s and the subscription is gone (renew answers 404)', async () => {
    const fake = await fakeMicrosoft();
    const bridge = await receiver('echo');
    const token = await graphToken(fake);
    const created = await subscribe(fake, token, `${bridge.url}/n`, { lifecycleNotificationUrl: `${bridge.url}/lifecycle` });
    const id = String(created.body.id);
    bridge.received.length = 0;

    const delivery = await fake.lifecycle(id, 'subscriptionRemoved');
    const renew = await call(`${fake.graphUrl}/subscriptions/${id}`, { method: 'PATCH', token, body: { expirationDateTime: inMinutes(100) } });

    expect(delivery.status).toBe(202);
    expect(bridge.received[0]?.url).toBe('/lifecycle');
    expect(JSON.parse(bridge.received[0]!.body)).toEqual({
      value: [
        {
          subscriptionId: id,
          subscriptionExpirationDateTime: created.body.expirationDateTime,
          tenantId: TENANT,
          clientState: 'state-secret',
          lifecycleEvent: 'subscriptionRemoved',
        },
      ],
    });
    expect(fake.subscriptions.get(id)).toMatchObject({ deleted: true, removedBy: 'graph' });
    expect(renew.status).toBe(404);
  });
});
