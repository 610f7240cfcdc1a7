import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { AppError } from '../../src/core/errors.ts';
import { buildApp } from '../support/app-harness.ts';

const passing = (name: string) => ({ name, check: async () => {} });
const failing = (name: string, reason: string) => ({
  name,
  check: async () => {
    throw new Error(reason);
  },
});

describe('GET /healthz', () => {
  it('when the process runs, then it answers 200 JSON without consulting readiness checks', async () => {
    // Arrange
    let consulted = false;
    const { app } = buildApp({ readiness: [{ name: 'store', check: async () => void (consulted = true) }] });

    // Act
    const reply = await request(app).get('/healthz');

    // Assert
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toMatch(/^application\/json/);
    expect(reply.body).toEqual({ status: 'ok', uptimeSeconds: expect.any(Number) });
    expect(consulted).toBe(false);
  });
});

describe('GET /readyz', () => {
  it('when every check passes, then it answers 200 with each check ok', async () => {
    // Arrange
    const { app } = buildApp({ readiness: [passing('store'), passing('momentum')] });

    // Act
    const reply = await request(app).get('/readyz');

    // Assert
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toMatch(/^application\/json/);
    expect(reply.body).toEqual({
      status: 'ready',
      checks: [
        { name: 'store', ok: true },
        { name: 'momentum', ok: true },
      ],
    });
  });

  it('when one check fails, then it answers 503 naming the failing check and only that one as not ok', async () => {
    // Arrange
    const { app } = buildApp({ readiness: [passing('momentum'), failing('store', 'database is unreachable')] });

    // Act
    const reply = await request(app).get('/readyz');

    // Assert
    expect(reply.status).toBe(503);
    expect(reply.body.status).toBe('not ready');
    expect(reply.body.checks).toEqual([
      { name: 'momentum', ok: true },
      { name: 'store', ok: false },
    ]);
    expect(reply.text).not.toContain('database is unreachable');
  });

  it("when a check fails with an AppError, then it answers 503 with that error's message as the check's reason", async () => {
    // Arrange
    const { app } = buildApp({
      readiness: [
        passing('worker'),
        {
          name: 'store',
          check: async () => {
            throw new AppError('store_cannot_write', 'cannot write: database or disk is full', { status: 503 });
          },
        },
      ],
    });

    // Act
    const reply = await request(app).get('/readyz');

    // Assert
    expect(reply.status).toBe(503);
    expect(reply.body).toEqual({
      status: 'not ready',
      checks: [
        { name: 'worker', ok: true },
        { name: 'store', ok: false, reason: 'cannot write: database or disk is full' },
      ],
    });
  });

  it('when a check throws synchronously instead of rejecting, then it still answers 503 naming it', async () => {
    // Arrange
    const { app } = buildApp({
      readiness: [
        {
          name: 'store',
          check: () => {
            throw new Error('not opened');
          },
        },
      ],
    });

    // Act
    const reply = await request(app).get('/readyz');

    // Assert
    expect(reply.status).toBe(503);
    expect(reply.body.checks).toEqual([expect.objectContaining({ name: 'store', ok: false })]);
  });

  it('when no checks are registered, then it answers 200', async () => {
    // Arrange
    const { app } = buildApp();

    // Act
    const reply = await request(app).get('/readyz');

    // Assert
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ status: 'ready', checks: [] });
  });
});
