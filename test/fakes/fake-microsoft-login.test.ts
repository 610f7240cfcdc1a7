import { execFile } from 'node:child_process';
import { createHash, sign, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';

import { ConfidentialClientApplication } from '@azure/msal-node';
import { beforeAll, describe, expect, it } from 'vitest';

import { cleanupAfterEach } from '../support/cleanups.ts';
import {
  call,
  CLIENT,
  CLIENT_CERT,
  CLIENT_KEY,
  CLIENT_PEM,
  fakeMicrosoftKit,
  GRAPH_SCOPE,
  type Json,
  msalApp,
  recordingNetwork,
  SECRET,
  tokenForm,
} from './fake-microsoft-kit.ts';
import { TEST_KEY_FILE, trustTestCertificate } from './trust-test-ca.ts';

/*
 * The fake Microsoft is the yardstick of the Microsoft 365 calendar tests, so its own behaviour is
 * pinned here (docs/protocols.md §7): the identity platform: a real msal-node client signs in against the fake login host (secret and certificate) without one request leaving loopback, and the token endpoint answers as Entra ID does.
 */

beforeAll(() => trustTestCertificate());
const cleanups = cleanupAfterEach();
const { fakeMicrosoft } = fakeMicrosoftKit(cleanups);

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
