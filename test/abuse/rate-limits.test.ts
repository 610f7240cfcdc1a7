import { setTimeout as delay } from 'node:timers/promises';

import express, { Router } from 'express';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';

import { createApp } from '../../src/app.ts';
import { AppError } from '../../src/core/errors.ts';
import { authFailureLimit, recordAuthFailure } from '../../src/http/auth-failure-limit.ts';
import { jsonErrorHandler } from '../../src/http/error-handler.ts';
import { parseConfig } from '../../src/settings.ts';
import { eventNotification, outboundMessage } from '../salesforce/support/outbound-message-builder.ts';
import { type Harness, startHarness } from '../salesforce/support/salesforce-route-harness.ts';
import { readFault } from '../salesforce/support/soap-reply-reader.ts';
import { captureLogs } from '../support/log-capture.ts';
import { storedCounts } from '../support/stored-rows.ts';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const message = (n: number) => outboundMessage({ notifications: [eventNotification(n)] });

describe('INBOUND_RATE_LIMIT on POST /salesforce/outbound-message', () => {
  it('when one address sends past the limit, then 429 with Retry-After and a SOAP fault, and the refused message is not stored', async () => {
    harness = await startHarness({ env: { INBOUND_RATE_LIMIT: '2/1m' } });

    const first = await harness.post(message(1));
    const second = await harness.post(message(2));
    const third = await harness.post(message(3));

    expect([first.status, second.status]).toEqual([200, 200]);
    expect(third.status).toBe(429);
    expect(Number(third.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(third.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(third.headers['content-type']).toBe('text/xml; charset=utf-8');
    expect(third.text).not.toContain('<Ack>');
    expect(readFault(third.text)).toEqual({
      faultcode: 'soapenv:Client',
      faultstring: expect.stringMatching(/^too many requests from this address; retry after \d+ s$/),
    });
    expect(storedCounts(harness.file)).toEqual({ messages: 2, events: 2, jobs: 2 });
  });

  it('when addresses behind a trusted proxy differ, then each has its own budget', async () => {
    harness = await startHarness({ env: { INBOUND_RATE_LIMIT: '1/1m', TRUST_PROXY: 'loopback' } });

    const a1 = await harness.post(message(1)).set('X-Forwarded-For', '203.0.113.1');
    const a2 = await harness.post(message(2)).set('X-Forwarded-For', '203.0.113.1');
    const b1 = await harness.post(message(3)).set('X-Forwarded-For', '203.0.113.2');

    expect([a1.status, a2.status, b1.status]).toEqual([200, 429, 200]);
    expect(storedCounts(harness.file).events).toBe(2);
  });

  it('when Salesforce redelivers a refused message after Retry-After, then it is acked and stored: a 429 delays, never loses', async () => {
    harness = await startHarness({ env: { INBOUND_RATE_LIMIT: '1/1s' } });
    expect((await harness.post(message(1))).status).toBe(200);
    const refused = await harness.post(message(2));
    expect(refused.status).toBe(429);

    await delay(Number(refused.headers['retry-after']) * 1000);
    const redelivered = await harness.post(message(2));

    expect(redelivered.status).toBe(200);
    expect(redelivered.text).toContain('<Ack>true</Ack>');
    expect(storedCounts(harness.file)).toEqual({ messages: 2, events: 2, jobs: 2 });
  });

  it('when INBOUND_RATE_LIMIT=off, then nothing is limited', async () => {
    harness = await startHarness({ env: { INBOUND_RATE_LIMIT: 'off' } });

    const statuses = [];
    for (let n = 1; n <= 5; n += 1) statuses.push((await harness.post(message(n))).status);

    expect(statuses).toEqual([200, 200, 200, 200, 200]);
  });
});

describe('INBOUND_RATE_LIMIT on /calendar/*', () => {
  it('when one address sends past the limit, then 429 with Retry-After and a JSON error', async () => {
    const logs = captureLogs();
    const app = createApp({ config: parseConfig({ NODE_ENV: 'test', INBOUND_RATE_LIMIT: '1/1m' }), logger: logs.logger, readiness: [] });

    await request(app).post('/calendar/events').send({});
    const limited = await request(app).post('/calendar/events').send({});
    const health = await request(app).get('/healthz');

    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited.body).toEqual({
      error: { code: 'rate_limited', message: expect.stringMatching(/^too many requests from this address; retry after \d+ s$/) },
    });
    // Health checks are never limited: probes come from one address too.
    expect(health.status).toBe(200);
  });
});

describe('authFailureLimit (ADMIN_AUTH_FAILURE_LIMIT)', () => {
  const KEY = 'admin-key-0123456789abcdef';

  /** A stand-in admin router: 401 without the key, recorded as the real admin and metrics checks record it. */
  function adminApp(limit: string) {
    const logger = captureLogs().logger;
    const app = express();
    app.set('trust proxy', 'loopback');
    app.use('/admin', authFailureLimit(parseConfig({ ADMIN_AUTH_FAILURE_LIMIT: limit }).ADMIN_AUTH_FAILURE_LIMIT));
    const router = Router();
    router.get('/admin/jobs', (req, res, next) => {
      if (req.get('x-api-key') !== KEY) {
        recordAuthFailure(res);
        return next(new AppError('unauthorized', 'admin API key required', { status: 401 }));
      }
      res.json({ jobs: [] });
    });
    router.get('/admin/jobs/:id', (req, _res, next) => next(new AppError('not_found', 'no such job', { status: 404 })));
    app.use(router);
    app.use(jsonErrorHandler(logger));
    return app;
  }
  const call = (app: express.Express, options: { key?: string; from?: string; path?: string } = {}) => {
    const test = request(app)
      .get(options.path ?? '/admin/jobs')
      .set('X-Forwarded-For', options.from ?? '203.0.113.1');
    return options.key === undefined ? test : test.set('X-API-Key', options.key);
  };

  it('when requests succeed or fail for other reasons than authentication, then they never count', async () => {
    const app = adminApp('2/15m');

    const statuses = [];
    for (let i = 0; i < 5; i += 1) statuses.push((await call(app, { key: KEY })).status);
    for (let i = 0; i < 3; i += 1) statuses.push((await call(app, { key: KEY, path: '/admin/jobs/9' })).status);

    expect(statuses).toEqual([200, 200, 200, 200, 200, 404, 404, 404]);
  });

  it('when one address fails authentication past the limit, then it gets 429 with Retry-After, even with the right key, and other addresses are unaffected', async () => {
    const app = adminApp('2/15m');

    const failures = [(await call(app, { key: 'wrong' })).status, (await call(app)).status];
    const blocked = await call(app, { key: 'wrong' });
    const blockedWithKey = await call(app, { key: KEY });
    const otherAddress = await call(app, { key: KEY, from: '203.0.113.2' });

    expect(failures).toEqual([401, 401]);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
    expect(blocked.body.error.code).toBe('too_many_auth_failures');
    expect(blockedWithKey.status).toBe(429);
    expect(otherAddress.status).toBe(200);
  });
});

describe('ADMIN_AUTH_FAILURE_LIMIT on the mounted /admin API', () => {
  const KEY = 'admin-key-0123456789abcdef';

  it('when one address fails admin authentication past the limit, then 429 with Retry-After even with the right key, while other addresses still get in', async () => {
    harness = await startHarness({ env: { ADMIN_API_KEYS: KEY, ADMIN_AUTH_FAILURE_LIMIT: '2/15m', TRUST_PROXY: 'loopback' } });
    const stats = (key: string, from: string) => request(harness!.app).get('/admin/stats').set('Authorization', `Bearer ${key}`).set('X-Forwarded-For', from);

    const good = [(await stats(KEY, '203.0.113.1')).status, (await stats(KEY, '203.0.113.1')).status, (await stats(KEY, '203.0.113.1')).status];
    const failures = [(await stats('wrong-key', '203.0.113.1')).status, (await stats('wrong-key', '203.0.113.1')).status];
    const blocked = await stats(KEY, '203.0.113.1');
    const otherAddress = await stats(KEY, '203.0.113.2');

    expect(good).toEqual([200, 200, 200]);
    expect(failures).toEqual([401, 401]);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(blocked.body.error.code).toBe('too_many_auth_failures');
    expect(otherAddress.status).toBe(200);
  });
});
