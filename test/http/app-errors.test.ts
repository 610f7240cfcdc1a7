import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { AppError } from '../../src/core/errors.ts';
import { jsonErrorHandler, jsonNotFound } from '../../src/http/error-handler.ts';
import { requestId } from '../../src/http/request-id.ts';
import { buildApp } from '../support/app-harness.ts';
import { captureLogs } from '../support/log-capture.ts';

describe('createApp: unknown routes and headers', () => {
  it('when no route matches, then it answers a JSON 404 {error:{code:"not_found",message}}', async () => {
    // Arrange
    const { app } = buildApp();

    // Act
    const reply = await request(app).post('/no/such/route').send({ any: 'body' });

    // Assert
    expect(reply.status).toBe(404);
    expect(reply.headers['content-type']).toMatch(/^application\/json/);
    expect(reply.body).toEqual({ error: { code: 'not_found', message: expect.stringContaining('/no/such/route') } });
  });

  it('when any route answers, then helmet headers are set and x-powered-by is not', async () => {
    // Arrange
    const { app } = buildApp();

    // Act
    const replies = [await request(app).get('/healthz'), await request(app).get('/missing')];

    // Assert
    for (const reply of replies) {
      expect(reply.headers['x-powered-by']).toBeUndefined();
      expect(reply.headers['x-content-type-options']).toBe('nosniff');
      expect(reply.headers['content-security-policy']).toContain("default-src 'self'");
      expect(reply.headers['strict-transport-security']).toMatch(/max-age=\d+/);
      expect(reply.headers['x-frame-options']).toBe('SAMEORIGIN');
    }
  });
});

/* createApp mounts no route that fails on demand, so the app's one error handler is exercised on a
 * small app with the same middleware order: request id, routes, JSON 404, error handler. */
function appThatFails(route: express.RequestHandler) {
  const logs = captureLogs({ secrets: ['hunter2-database-password'] });
  const app = express();
  app.use(requestId());
  app.post('/fails', express.json({ limit: '1kb' }), route);
  app.use(jsonNotFound());
  app.use(jsonErrorHandler(logs.logger));
  return { app, logs };
}

describe('jsonErrorHandler', () => {
  it('when a route throws an unexpected error, then the client gets a generic 500 without stack, path or message', async () => {
    // Arrange
    const { app, logs } = appThatFails(() => {
      throw new Error('connect to postgres://bridge:hunter2-database-password@db failed');
    });

    // Act
    const reply = await request(app).post('/fails').send({});

    // Assert
    expect(reply.status).toBe(500);
    expect(reply.body).toEqual({ error: { code: 'internal_error', message: 'internal error' } });
    expect(reply.text).not.toMatch(/at .*\.ts:\d+|hunter2|postgres:|stack/);
    const logged = logs.lines().find((line) => line.message === 'request failed');
    expect(logged).toMatchObject({ level: 'error', code: 'internal_error', requestId: reply.headers['x-request-id'] });
    expect(logs.text()).not.toContain('hunter2-database-password');
  });

  it('when a route throws an AppError, then its code, message, status and details reach the client and no stack', async () => {
    // Arrange
    const { app } = appThatFails(() => {
      throw new AppError('invalid_org', 'organization id not allowed', { status: 403, details: { orgId: '00D000000000001' } });
    });

    // Act
    const reply = await request(app).post('/fails').send({});

    // Assert
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual({ error: { code: 'invalid_org', message: 'organization id not allowed', details: { orgId: '00D000000000001' } } });
    expect(reply.text).not.toMatch(/at .*\.ts:\d+|stack/);
  });

  it('when a JSON body is malformed, then it answers a precise 400 and the route never runs', async () => {
    // Arrange
    let ran = false;
    const { app } = appThatFails((_req, res) => {
      ran = true;
      res.json({});
    });

    // Act
    const reply = await request(app).post('/fails').set('content-type', 'application/json').send('{"broken":');

    // Assert
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('entity.parse.failed');
    expect(reply.text).not.toMatch(/at .*\.js:\d+|stack|node_modules/);
    expect(ran).toBe(false);
  });

  it('when a body exceeds the route limit, then it answers 413 and the route never runs', async () => {
    // Arrange
    let ran = false;
    const { app } = appThatFails((_req, res) => {
      ran = true;
      res.json({});
    });

    // Act
    const reply = await request(app)
      .post('/fails')
      .send({ text: 'x'.repeat(2048) });

    // Assert
    expect(reply.status).toBe(413);
    expect(reply.body.error.code).toBe('entity.too.large');
    expect(ran).toBe(false);
  });
});
