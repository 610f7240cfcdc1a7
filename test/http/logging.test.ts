import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { requestContext } from '../../src/core/logger.ts';
import { buildApp } from '../support/app-harness.ts';
import { captureLogs } from '../support/log-capture.ts';

describe('access log', () => {
  it('when a request is answered, then one line records method, route, status and duration with its request id', async () => {
    // Arrange
    const { app, logs } = buildApp();

    // Act
    const reply = await request(app).get('/healthz?probe=1').set('X-Request-Id', 'access-1');

    // Assert
    const access = await logs.waitForLine((line) => line.message === 'request');
    expect(access).toMatchObject({ level: 'info', method: 'GET', route: '/healthz', path: '/healthz', status: 200, requestId: 'access-1' });
    expect(access.ms).toEqual(expect.any(Number));
    expect(access.ms as number).toBeGreaterThanOrEqual(0);
    expect(logs.lines().filter((line) => line.message === 'request')).toHaveLength(1);
    expect(reply.status).toBe(200);
  });

  it('when no route matches, then the access line says unmatched with status 404 and the refusal line carries the request id', async () => {
    // Arrange
    const { app, logs } = buildApp();

    // Act
    await request(app).delete('/nothing/here').set('X-Request-Id', 'miss-1');

    // Assert
    const access = await logs.waitForLine((line) => line.message === 'request');
    expect(access).toMatchObject({ method: 'DELETE', route: '(unmatched)', status: 404, requestId: 'miss-1' });
    // The refusal is logged by the error handler, which never passes the id: it comes from the request context.
    const refusal = logs.lines().find((line) => line.message === 'request refused');
    expect(refusal).toMatchObject({ level: 'warn', code: 'not_found', requestId: 'miss-1' });
  });

  it('when code logs inside a request context, then the line carries that request id without passing it', () => {
    // Arrange
    const { logger, lines } = captureLogs();

    // Act
    requestContext.run({ requestId: 'ctx-7' }, () => logger.info('remap queued', { deliveryId: 3 }));
    logger.info('outside any request');

    // Assert
    expect(lines()).toEqual([
      expect.objectContaining({ message: 'remap queued', deliveryId: 3, requestId: 'ctx-7' }),
      expect.not.objectContaining({ requestId: expect.anything() }),
    ]);
  });
});

describe('secret redaction', () => {
  const apiKey = 'mk_live_7f3c9a1be2d54c0aa1';
  const bearer = 'eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXRva2Vu.sig';

  it('when a request carries X-API-Key and Authorization, then neither value appears in the captured output', async () => {
    // Arrange
    const { app, logs } = buildApp();

    // Act
    await request(app).get('/missing').set('X-API-Key', apiKey).set('Authorization', `Bearer ${bearer}`);
    await request(app).get('/healthz').set('X-API-Key', apiKey).set('Authorization', `Bearer ${bearer}`);

    // Assert
    await logs.waitForLine((line) => line.message === 'request' && line.route === '/healthz');
    expect(logs.lines().length).toBeGreaterThanOrEqual(3);
    expect(logs.text()).not.toContain(apiKey);
    expect(logs.text()).not.toContain(bearer);
  });

  it('when headers are logged as metadata, then secret-named keys are redacted and other keys kept', () => {
    // Arrange
    const { logger, text, lines } = captureLogs();

    // Act
    logger.info('inbound', {
      headers: { 'x-api-key': apiKey, authorization: `Bearer ${bearer}`, 'content-type': 'text/xml' },
      nested: [{ accessToken: bearer, clientSecret: 'cs-123456', privateKey: '-----BEGIN PRIVATE KEY-----x', note: 'kept' }],
    });

    // Assert
    expect(text()).not.toContain(apiKey);
    expect(text()).not.toContain(bearer);
    expect(text()).not.toContain('cs-123456');
    expect(text()).not.toContain('BEGIN PRIVATE KEY');
    expect(lines()[0]).toMatchObject({
      headers: { 'x-api-key': '[redacted]', authorization: '[redacted]', 'content-type': 'text/xml' },
      nested: [{ accessToken: '[redacted]', clientSecret: '[redacted]', privateKey: '[redacted]', note: 'kept' }],
    });
  });

  it('when a configured secret value appears anywhere (message, error, free text), then it is replaced', async () => {
    // Arrange: the admin key comes from configuration, as server.ts passes secretValues(config).
    const adminKey = 'adm-0123456789abcdef-rotated';
    const { app, logs } = buildApp({ env: { ADMIN_API_KEYS: adminKey, MOMENTUM_API_KEY: apiKey } });

    // Act
    logs.logger.warn(`login with ${adminKey}`, { error: new Error(`upstream refused ${apiKey}`), detail: `key=${adminKey}` });
    await request(app).get(`/no-route/${adminKey}`);

    // Assert
    await logs.waitForLine((line) => line.message === 'request' && line.status === 404);
    expect(logs.text()).not.toContain(adminKey);
    expect(logs.text()).not.toContain(apiKey);
    expect(logs.lines()[0]).toMatchObject({ message: 'login with [redacted]', detail: 'key=[redacted]', error: { message: 'upstream refused [redacted]' } });
  });
});

describe('log levels', () => {
  it('when a line is below LOG_LEVEL, then it is dropped before any format serialises it, and it is written once the level allows it', async () => {
    // Arrange: a value that counts how often it is serialised.
    let serialised = 0;
    const probe = { toJSON: () => ((serialised += 1), 'probe') };
    const quiet = captureLogs({ level: 'info' });
    const verbose = captureLogs({ level: 'debug' });

    // Act
    quiet.logger.debug('remap forwarded', { probe });
    quiet.logger.child({ jobId: 1 }).debug('remap forwarded', { probe });
    const droppedSerialisations = serialised;
    verbose.logger.child({ jobId: 2 }).debug('remap forwarded', { probe });

    // Assert
    expect(droppedSerialisations).toBe(0);
    expect(quiet.lines()).toEqual([]);
    expect(await verbose.waitForLine((line) => line.message === 'remap forwarded')).toMatchObject({ level: 'debug', jobId: 2, probe: 'probe' });
    expect(serialised).toBe(1);
  });

  it("when a level is disabled, then its calls never enter winston's stream; when the level is raised at run time, they do", () => {
    const logs = captureLogs({ level: 'info' });
    const writes: string[] = [];
    const write = logs.logger.write.bind(logs.logger);
    logs.logger.write = (info) => (writes.push(String(info.message)), write(info));

    logs.logger.debug('hidden');
    logs.logger.child({ jobId: 3 }).debug('hidden child');
    logs.logger.info('shown');
    logs.logger.level = 'debug';
    logs.logger.debug('shown once debug is on');

    expect(writes).toEqual(['shown', 'shown once debug is on']);
  });
});

describe('line format', () => {
  it('when a line is written, then it starts with timestamp, level and message, and the metadata follows', () => {
    // Arrange
    const { logger, text } = captureLogs();

    // Act
    logger.child({ jobId: 3 }).info('job finished', { state: 'succeeded', ms: 4 });

    // Assert
    expect(text()).toMatch(/^\{"timestamp":"[^"]+","level":"info","message":"job finished","jobId":3,"state":"succeeded","ms":4\}/);
  });

  it('when an Error is logged as the entry or as the message, then the line carries its message; bigints, dates and cycles serialise as JSON can carry them', () => {
    // Arrange
    const { logger, lines } = captureLogs();
    const shared = { id: 1 };
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;

    // Act
    logger.error(new Error('store went away'));
    logger.warn(new Error('upstream refused') as unknown as string, { attempt: 2 });
    logger.info('counted', { rows: 12n, first: shared, cyclic, at: new Date('2026-11-22T10:00:00Z') });

    // Assert
    expect(lines()).toEqual([
      expect.objectContaining({ level: 'error', message: 'store went away', timestamp: expect.any(String) }),
      expect.objectContaining({ level: 'warn', message: 'upstream refused', attempt: 2 }),
      expect.objectContaining({
        level: 'info',
        message: 'counted',
        rows: '12',
        first: { id: 1 },
        cyclic: { name: 'loop', self: '[circular]' },
        at: '2026-11-22T10:00:00.000Z',
      }),
    ]);
  });
});
