import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterEach, describe, expect, it, onTestFinished } from 'vitest';

import { killAllBridges, launchBridge, spawnBridge } from '../support/spawn-bridge.ts';

afterEach(killAllBridges);

const fetchError = (error: { cause?: { code?: string } }) => error.cause?.code ?? 'unknown';

describe('node src/server.ts', () => {
  it('when started with its defaults on a free port, then it serves /healthz and logs JSON lines to stdout', async () => {
    // Arrange
    const bridge = await spawnBridge();

    // Act
    const reply = await fetch(`${bridge.url}/healthz`, { headers: { 'x-request-id': 'proc-1' } });

    // Assert
    expect(reply.status).toBe(200);
    expect(await reply.json()).toMatchObject({ status: 'ok' });
    const access = await bridge.waitForLog((line) => line.message === 'request');
    expect(access).toMatchObject({ route: '/healthz', status: 200, requestId: 'proc-1', level: 'info' });
    expect(bridge.logs.every((line) => line.raw === undefined)).toBe(true);
    expect(bridge.stderr()).toBe('');
  });

  it('when settings are invalid, then it exits 1 naming each variable on stderr and never listens', async () => {
    // Arrange
    const bridge = launchBridge({ env: { PORT: 'eighty', SALESFORCE_ORG_IDS: '00Dshort', MOMENTUM_API_BASE_URL: 'ftp://x' } });

    // Act
    const exit = await bridge.exited;

    // Assert
    expect(exit).toEqual({ code: 1, signal: null });
    const problems = bridge
      .stderr()
      .split('\n')
      .filter((line) => line.startsWith('  '));
    expect(problems).toHaveLength(3);
    expect(problems.find((line) => line.includes('PORT:'))).toContain('(example: PORT=8080)');
    expect(problems.some((line) => line.includes('SALESFORCE_ORG_IDS:'))).toBe(true);
    expect(problems.some((line) => line.includes('MOMENTUM_API_BASE_URL:'))).toBe(true);
    expect(bridge.logs.some((line) => line.message === 'bridge listening')).toBe(false);
  });

  it('when a secret setting is invalid, then the lines on stderr name it and its fault but never show its value', async () => {
    // Arrange
    const env = { ADMIN_API_KEYS: 'admin-key-long-enough-1,shortkey9', CALENDAR_WEBHOOK_SECRETS: 'mysecret', MOMENTUM_API_KEY: 'mk live' };

    // Act
    const bridge = launchBridge({ env });
    const exit = await bridge.exited;

    // Assert
    expect(exit.code).toBe(1);
    const stderr = bridge.stderr();
    expect(stderr).toContain('ADMIN_API_KEYS: each admin key needs at least 16 characters; entry 2 of 2 has 9 characters (not shown: secret)');
    expect(stderr).toContain('CALENDAR_WEBHOOK_SECRETS: each secret must be whsec_ followed by base64 (at least 12 bytes); entry 1 of 1 has 8 characters');
    expect(stderr).toContain('MOMENTUM_API_KEY: must be one token');
    for (const value of ['shortkey9', 'admin-key-long-enough-1', 'mysecret', 'mk live']) expect(stderr).not.toContain(value);
  });

  it('when a setting is misspelt, then it starts anyway and logs a warning naming the nearest setting, never the value', async () => {
    // Arrange
    const env = { MAPPING_RULES: '/etc/bridge/rules.json', MOMENTUM_APIKEY: 'mk_live_should_not_show' };

    // Act
    const bridge = await spawnBridge({ env });

    // Assert
    expect((await fetch(`${bridge.url}/healthz`)).status).toBe(200);
    const warnings = bridge.logs.filter((line) => line.message === 'unknown setting ignored');
    expect(warnings).toEqual([
      expect.objectContaining({ level: 'warn', setting: 'MAPPING_RULES', didYouMean: 'MAPPING_FILE' }),
      expect.objectContaining({ level: 'warn', setting: 'MOMENTUM_APIKEY', didYouMean: 'MOMENTUM_API_KEY' }),
    ]);
    expect(bridge.stdout()).not.toContain('mk_live_should_not_show');
    expect(bridge.stdout()).not.toContain('/etc/bridge/rules.json');
  });

  it('when NODE_ENV=production lacks MOMENTUM_API_KEY, then it exits 1 naming it', async () => {
    // Arrange
    const bridge = launchBridge({ env: { NODE_ENV: 'production' } });

    // Act
    const exit = await bridge.exited;

    // Assert
    expect(exit.code).toBe(1);
    expect(bridge.stderr()).toMatch(/MOMENTUM_API_KEY: required when NODE_ENV=production/);
  });

  it('when a required setting is missing because its name is misspelt, then the refusal says which name was meant', async () => {
    // Arrange
    const bridge = launchBridge({ env: { NODE_ENV: 'production', MOMENTUM_APIKEY: 'mk_live_should_not_show' } });

    // Act
    const exit = await bridge.exited;

    // Assert
    expect(exit.code).toBe(1);
    expect(bridge.stderr()).toMatch(/MOMENTUM_API_KEY: required when NODE_ENV=production/);
    expect(bridge.stderr()).toContain('crm-sync-bridge: unknown setting MOMENTUM_APIKEY ignored (did you mean MOMENTUM_API_KEY?)');
    expect(bridge.stderr()).not.toContain('mk_live_should_not_show');
  });

  it('when a .env file is in the working directory, then it is read, and the real environment wins over it', async () => {
    // Arrange
    const cwd = mkdtempSync(path.join(tmpdir(), 'bridge-env-'));
    onTestFinished(() => rmSync(cwd, { recursive: true, force: true }));
    writeFileSync(path.join(cwd, '.env'), 'SALESFORCE_ORG_IDS=not-an-org-id\n');

    // Act
    const fromFile = launchBridge({ cwd });
    const fromFileExit = await fromFile.exited;
    const overridden = await spawnBridge({ cwd, env: { SALESFORCE_ORG_IDS: '00D8d0000001XyZEAU' } });

    // Assert
    expect(fromFileExit.code).toBe(1);
    expect(fromFile.stderr()).toContain('SALESFORCE_ORG_IDS:');
    expect((await fetch(`${overridden.url}/healthz`)).status).toBe(200);
  });
});

describe('node src/server.ts: stopping', () => {
  it('when SIGTERM arrives during a slow request, then no new request is served, the slow one finishes and it exits 0', async () => {
    // Arrange
    const bridge = await spawnBridge({ testRoutes: true });
    const slow = fetch(`${bridge.url}/__test/slow`).then(async (reply) => ({ status: reply.status, body: await reply.json() }));
    await bridge.waitForLog((line) => line.message === 'test: slow request entered');

    // Act
    bridge.child.kill('SIGTERM');
    await bridge.waitForLog((line) => line.message === 'shutting down');
    const late = await fetch(`${bridge.url}/healthz`).then((reply) => reply.status, fetchError);
    bridge.child.stdin.write('release\n');

    // Assert
    expect(await slow).toEqual({ status: 200, body: { finished: true } });
    expect(await bridge.exited).toEqual({ code: 0, signal: null });
    // Refused once the listening socket is gone; reset when the connection raced its closing.
    expect(['ECONNREFUSED', 'ECONNRESET']).toContain(late);
    const order = ['bridge listening', 'test: slow request entered', 'shutting down', 'stopped cleanly'].map((message) =>
      bridge.logs.findIndex((line) => line.message === message),
    );
    expect(order.every((index, at) => index >= 0 && (at === 0 || index > order[at - 1]!))).toBe(true);
    expect(bridge.logs.at(-1)).toMatchObject({ message: 'stopped cleanly' });
    expect(bridge.logs.find((line) => line.message === 'shutting down')).toMatchObject({ signal: 'SIGTERM', deadlineMs: 10_000 });
  });

  it('when a request outlives SHUTDOWN_TIMEOUT_MS, then its connection is cut and it still exits 0', async () => {
    // Arrange
    const bridge = await spawnBridge({ testRoutes: true, env: { SHUTDOWN_TIMEOUT_MS: '200' } });
    const slow = fetch(`${bridge.url}/__test/slow`).then((reply) => reply.status, fetchError);
    await bridge.waitForLog((line) => line.message === 'test: slow request entered');

    // Act
    bridge.child.kill('SIGTERM');

    // Assert
    expect(await bridge.exited).toEqual({ code: 0, signal: null });
    expect(await slow).toBe('UND_ERR_SOCKET');
  });

  it('when SIGINT arrives while idle, then it stops cleanly with exit 0', async () => {
    // Arrange
    const bridge = await spawnBridge();

    // Act
    bridge.child.kill('SIGINT');

    // Assert
    expect(await bridge.exited).toEqual({ code: 0, signal: null });
    expect(bridge.logs.find((line) => line.message === 'shutting down')).toMatchObject({ signal: 'SIGINT' });
    expect(bridge.logs.at(-1)).toMatchObject({ message: 'stopped cleanly' });
  });

  it('when a promise rejection goes unhandled, then it is logged and the process exits non-zero for its supervisor', async () => {
    // Arrange
    const bridge = await spawnBridge({ testRoutes: true });

    // Act
    const reply = await fetch(`${bridge.url}/__test/unhandled-rejection`);
    const exit = await bridge.exited;

    // Assert
    expect(reply.status).toBe(202);
    expect(exit.code).not.toBe(0);
    expect(exit.code).not.toBeNull();
    expect(bridge.logs.find((line) => line.message === 'unhandled promise rejection, exiting')).toMatchObject({
      level: 'error',
      error: { message: 'test: deliberate unhandled rejection' },
    });
    expect(bridge.logs.some((line) => line.message === 'stopped cleanly')).toBe(false);
  });
});
