import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';

import { createApiKeyMatcher, keyFingerprint, presentedKey } from '../../src/admin/api-keys.ts';
import { ADMIN_ROUTE_LIST } from '../../src/admin/routes.ts';
import { type AdminApp, KEY, ROTATED_KEY, startAdminApp } from './support/admin-app.ts';
import { deadRemap } from './support/seed.ts';

/** Every spec'd route with a concrete path (an id where the path has one). */
const concreteRoutes = ADMIN_ROUTE_LIST.map((spec) => ({ method: spec.method, path: spec.path.replace(':id', '1') }));

describe('admin API authentication', () => {
  let harness: AdminApp | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('when no admin key is configured, then every admin route answers 503 "admin API disabled: set ADMIN_API_KEYS"', async () => {
    harness = await startAdminApp({ env: { ADMIN_API_KEYS: '' } });

    for (const route of concreteRoutes) {
      const response = await request(harness.app)[route.method](route.path).set('Authorization', `Bearer ${KEY}`);

      expect(response.status, `${route.method} ${route.path}`).toBe(503);
      expect(response.body).toEqual({ error: { code: 'admin_disabled', message: 'admin API disabled: set ADMIN_API_KEYS' } });
    }
  });

  it('when the key is missing or wrong on any admin route, then 401 JSON says only that a valid key is required', async () => {
    harness = await startAdminApp();
    const expected = { error: { code: 'unauthorized', message: 'a valid admin API key is required' } };

    for (const route of concreteRoutes) {
      const missing = await request(harness.app)[route.method](route.path);
      const wrong = await request(harness.app)[route.method](route.path).set('X-API-Key', `${KEY}x`);
      const basicAuth = `Basic ${Buffer.from(`admin:${KEY}`).toString('base64')}`;
      const basic = await request(harness.app)[route.method](route.path).set('Authorization', basicAuth);

      for (const response of [missing, wrong, basic]) {
        expect(response.status, `${route.method} ${route.path}`).toBe(401);
        expect(response.body).toEqual(expected);
        expect(response.headers['www-authenticate']).toBe('Bearer realm="admin"');
      }
    }
    // An unknown admin path is no different: nothing tells a caller without a key which paths exist.
    expect((await request(harness.app).get('/admin/no-such-thing')).status).toBe(401);
  });

  it('when either configured key is sent as Bearer or X-API-Key, then the request is served', async () => {
    harness = await startAdminApp();

    const bearer = await request(harness.app).get('/admin/stats').set('Authorization', `Bearer ${KEY}`);
    const header = await request(harness.app).get('/admin/stats').set('X-API-Key', ROTATED_KEY);
    const lowercaseScheme = await request(harness.app).get('/admin/stats').set('Authorization', `bearer ${ROTATED_KEY}`);

    expect([bearer.status, header.status, lowercaseScheme.status]).toEqual([200, 200, 200]);
  });

  it('when a change is made, then the log names the key by fingerprint and says what changed, and never holds the key', async () => {
    harness = await startAdminApp();
    const dead = await deadRemap(harness.store, 'evt-log');

    const response = await harness.post(`/admin/deliveries/${dead.id}/replay`, undefined, ROTATED_KEY);

    expect(response.status).toBe(202);
    const change = harness.logs.lines().find((line) => line.message === 'admin change');
    expect(change).toMatchObject({
      level: 'info',
      action: 'replayDelivery',
      keyFingerprint: keyFingerprint(ROTATED_KEY),
      deliveryId: dead.id,
      replayId: response.body.delivery.id,
    });
    expect(keyFingerprint(ROTATED_KEY)).toMatch(/^[0-9a-f]{8}$/);
    expect(harness.logs.text()).not.toContain(ROTATED_KEY);
    expect(harness.logs.text()).not.toContain(KEY);
  });

  it('when a read is made, then no change is logged', async () => {
    harness = await startAdminApp();

    await harness.get('/admin/deliveries').expect(200);
    await harness.get('/admin/stats').expect(200);

    expect(harness.logs.lines().filter((line) => line.message === 'admin change')).toEqual([]);
  });

  it('when failed authentications pass ADMIN_AUTH_FAILURE_LIMIT, then that address gets 429 even with the right key, until the window ends', async () => {
    harness = await startAdminApp({ env: { ADMIN_AUTH_FAILURE_LIMIT: '2/15m' } });

    const failures = [await request(harness.app).get('/admin/stats'), await request(harness.app).get('/admin/stats').set('X-API-Key', 'guess-guess-guess-1')];
    const blocked = await harness.get('/admin/stats');

    expect(failures.map((response) => response.status)).toEqual([401, 401]);
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.code).toBe('too_many_auth_failures');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('api-keys', () => {
  it('when keys are matched, then only an exact configured key matches, and its fingerprint is returned', () => {
    const matcher = createApiKeyMatcher([KEY, ROTATED_KEY]);

    expect(matcher.enabled).toBe(true);
    expect(matcher.match(KEY)).toBe(keyFingerprint(KEY));
    expect(matcher.match(ROTATED_KEY)).toBe(keyFingerprint(ROTATED_KEY));
    expect(matcher.match(KEY.slice(0, -1))).toBeUndefined();
    expect(matcher.match(`${KEY} `)).toBeUndefined();
    expect(matcher.match('')).toBeUndefined();
    expect(matcher.match(undefined)).toBeUndefined();
    expect(createApiKeyMatcher([]).enabled).toBe(false);
    expect(createApiKeyMatcher([]).match(KEY)).toBeUndefined();
  });

  it('when headers carry a key, then Bearer wins over X-API-Key and other schemes are ignored', () => {
    expect(presentedKey({ authorization: 'Bearer abc', apiKey: 'def' })).toBe('abc');
    expect(presentedKey({ authorization: 'Basic abc', apiKey: 'def' })).toBe('def');
    expect(presentedKey({ authorization: 'Bearer', apiKey: undefined })).toBeUndefined();
    expect(presentedKey({ apiKey: '  def  ' })).toBe('def');
    expect(presentedKey({})).toBeUndefined();
  });
});
