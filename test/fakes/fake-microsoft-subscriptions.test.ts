import { beforeAll, describe, expect, it } from 'vitest';

import { cleanupAfterEach } from '../support/cleanups.ts';
import { ANA, call, CLIENT, fakeMicrosoftKit, graphToken, inMinutes, SECRET, subscribe, tokenForm } from './fake-microsoft-kit.ts';
import { trustTestCertificate } from './trust-test-ca.ts';

/*
 * The fake Microsoft is the yardstick of the Microsoft 365 calendar tests, so its own behaviour is
 * pinned here (docs/protocols.md §7): Graph's authorisation and subscriptions: tokens checked, endpoint validation, expirations, renew, reauthorize, delete and scripted failures.
 */

beforeAll(() => trustTestCertificate());
const cleanups = cleanupAfterEach();
const { fakeMicrosoft, receiver } = fakeMicrosoftKit(cleanups);

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
