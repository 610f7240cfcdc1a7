import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterEach, describe, expect, it, onTestFinished } from 'vitest';

import { listenOnLoopback } from '../support/listen-on-loopback.ts';
import { type BridgeProcess, killAllBridges, launchBridge } from '../support/spawn-bridge.ts';

/*
 * `node src/server.ts` started the way an operator starts it, against something out of reach.
 * Each start must end with exit code 1 and one line on stderr naming the setting and the cause:
 * no stack trace on either stream, no password from DATABASE_URL, never a `bridge listening`.
 */

afterEach(killAllBridges);

const PASSWORD = 'pw-Zq7MARKERx';
const testDatabaseUrl = process.env.TEST_DATABASE_URL;

/** The URL of the test server with another user, password and database. */
function postgresUrl(parts: { user?: string; database?: string }): string {
  const url = new URL(testDatabaseUrl ?? 'postgres://postgres@127.0.0.1:5432/test');
  url.username = parts.user ?? (url.username || 'postgres');
  url.password = PASSWORD;
  if (parts.database !== undefined) url.pathname = `/${parts.database}`;
  return url.toString();
}

/** A port nothing listens on: taken from the kernel, then given back. */
async function closedPort(): Promise<number> {
  const server = await listenOnLoopback(() => {});
  await server.close();
  return server.port;
}

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'bridge-start-'));
  onTestFinished(() => {
    chmodSync(dir, 0o700);
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/** Runs the process to its end and returns its one stderr line and its log, after checking what every failed start shares. */
async function failedStart(env: Record<string, string>): Promise<{ line: string; logs: BridgeProcess['logs'] }> {
  const bridge: BridgeProcess = launchBridge({ env });
  const exit = await bridge.exited;
  const stderr = bridge.stderr();
  expect(exit, stderr).toEqual({ code: 1, signal: null });
  expect(stderr.split('\n').filter((line) => line !== '')).toHaveLength(1);
  expect(stderr).toMatch(/^crm-sync-bridge: cannot start: /);
  for (const stream of [stderr, bridge.stdout()]) {
    expect(stream).not.toMatch(/\n\s+at /);
    expect(stream).not.toContain(PASSWORD);
  }
  expect(bridge.logs.some((line) => line.message === 'bridge listening')).toBe(false);
  return { line: stderr.trim().replace('crm-sync-bridge: cannot start: ', ''), logs: bridge.logs };
}

describe('node src/server.ts: a database out of reach', () => {
  it('when nothing listens at the PostgreSQL address, then it exits 1 saying the connection was refused there', async () => {
    // Arrange
    const port = await closedPort();

    // Act
    const { line } = await failedStart({ DATABASE_URL: `postgres://bridge:${PASSWORD}@127.0.0.1:${port}/bridge` });

    // Assert
    expect(line).toBe(`DATABASE_URL: connection refused at 127.0.0.1:${port}`);
  });

  it('when the host name does not resolve, then it exits 1 naming the host', async () => {
    // Act
    const { line } = await failedStart({ DATABASE_URL: `postgres://bridge:${PASSWORD}@no-such-host.invalid:5432/bridge` });

    // Assert
    // Offline, the resolver may not answer at all rather than say the name does not exist.
    expect(line).toMatch(/^DATABASE_URL: host no-such-host\.invalid (not found|could not be resolved \(DNS did not answer\))$/);
  });
});

describe.skipIf(testDatabaseUrl === undefined)('node src/server.ts: PostgreSQL refuses the connection', () => {
  it('when the database does not exist, then it exits 1 with PostgreSQL naming the database', async () => {
    // Act
    const { line } = await failedStart({ DATABASE_URL: postgresUrl({ database: 'no_such_database_x' }) });

    // Assert
    expect(line).toMatch(/^DATABASE_URL: database "no_such_database_x" does not exist \(at [^)]+:\d+\)$/);
  });

  it('when the role does not exist, then it exits 1 with PostgreSQL naming the role', async () => {
    // Act
    const { line } = await failedStart({ DATABASE_URL: postgresUrl({ user: 'no_such_role_x' }) });

    // Assert: a server that checks passwords may answer for the password first; it names the user either way.
    expect(line).toMatch(/^DATABASE_URL: (role "no_such_role_x" does not exist|password authentication failed for user "no_such_role_x") \(at [^)]+\)$/);
  });
});

describe('node src/server.ts: a SQLite file that cannot be written', () => {
  it('when a part of the path is a file, then it exits 1 naming the file and why', async () => {
    // Arrange
    const dir = tempDir();
    writeFileSync(path.join(dir, 'not-a-dir'), '');
    const file = path.join(dir, 'not-a-dir', 'bridge.db');

    // Act
    const { line } = await failedStart({ DATABASE_URL: `sqlite:${file}` });

    // Assert
    expect(line).toBe(`DATABASE_URL: cannot use the SQLite file ${file}: a part of its path is not a directory`);
  });

  it('when the path is a directory, then it exits 1 saying the file cannot be opened', async () => {
    // Arrange
    const file = path.join(tempDir(), 'bridge.db');
    mkdirSync(file);

    // Act
    const { line } = await failedStart({ DATABASE_URL: `sqlite:${file}` });

    // Assert
    expect(line).toMatch(new RegExp(`^DATABASE_URL: cannot use the SQLite file ${file}: it cannot be opened`));
  });

  // root writes where it likes: the permission case needs an ordinary user.
  it.skipIf(process.getuid?.() === 0)('when its directory may not be written, then it exits 1 saying permission is denied', async () => {
    // Arrange
    const dir = tempDir();
    chmodSync(dir, 0o500);
    const file = path.join(dir, 'data', 'bridge.db');

    // Act
    const { line } = await failedStart({ DATABASE_URL: `sqlite:${file}` });

    // Assert
    expect(line).toBe(`DATABASE_URL: cannot use the SQLite file ${file}: permission denied`);
  });
});

describe('node src/server.ts: a port in use', () => {
  it('when another process listens on PORT, then it exits 1 naming the port, having claimed no job', async () => {
    // Arrange
    const other = await listenOnLoopback(() => {});
    onTestFinished(() => other.close());

    // Act
    const { line, logs } = await failedStart({ PORT: String(other.port), HOST: '127.0.0.1' });

    // Assert
    expect(line).toBe(`PORT: ${other.port} is already in use on 127.0.0.1 (another process listens there)`);
    expect(logs.some((entry) => entry.message === 'worker started')).toBe(false);
  });
});
