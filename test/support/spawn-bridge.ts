import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/*
 * Runs the real process entry (`node src/server.ts`) as a child, the way an operator does.
 * Each child gets its own temporary working directory, so a developer's `.env` is never read and
 * the default `sqlite:data/bridge.db` lands in a directory of its own. PORT=0 lets the kernel pick
 * a free port; the URL comes from the `bridge listening` log line, so there is no port race.
 */

const root = path.resolve(import.meta.dirname, '../..');
export const serverEntry = path.join(root, 'src/server.ts');
const testRoutesPreload = path.join(import.meta.dirname, 'test-routes-preload.ts');

export type LogLine = Record<string, unknown>;
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface LaunchOptions {
  /** Environment of the child on top of PATH, PORT=0 and HOST=127.0.0.1 (nothing else is inherited). */
  env?: Record<string, string>;
  /** Preload test/support/test-routes-preload.ts (GET /__test/slow, GET /__test/unhandled-rejection). */
  testRoutes?: boolean;
  /** Working directory; a fresh temporary one (removed after exit) when omitted. */
  cwd?: string;
}

export interface BridgeProcess {
  child: ChildProcessWithoutNullStreams;
  /** Parsed stdout JSON lines so far; a line that is not JSON is kept as `{ raw }`. */
  logs: LogLine[];
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the first log line (already seen or still to come) matching; rejects if the process exits first. */
  waitForLog: (predicate: (line: LogLine) => boolean) => Promise<LogLine>;
  exited: Promise<Exit>;
  /** SIGKILLs the child if it still runs and waits for it; for afterEach. */
  kill: () => Promise<Exit>;
}

export interface RunningBridgeProcess extends BridgeProcess {
  url: string;
}

const running = new Set<BridgeProcess>();

/** Starts the child and returns at once (use for processes expected to fail at start). */
export function launchBridge(options: LaunchOptions = {}): BridgeProcess {
  const cwd = options.cwd ?? mkdtempSync(path.join(tmpdir(), 'bridge-proc-'));
  const args = [...(options.testRoutes ? ['--import', testRoutesPreload] : []), serverEntry];
  const child = spawn(process.execPath, args, {
    cwd,
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', ...options.env },
    stdio: 'pipe',
  });
  let stdout = '';
  let stderr = '';
  let partial = '';
  const logs: LogLine[] = [];
  const listeners = new Set<() => void>();
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines.filter((text) => text.trim() !== '')) logs.push(parseLine(line));
    for (const listener of listeners) listener();
  });

  let done = false;
  const exited = new Promise<Exit>((resolve) => {
    child.on('close', (code, signal) => {
      done = true;
      running.delete(bridge);
      for (const listener of listeners) listener();
      if (options.cwd === undefined) rmSync(cwd, { recursive: true, force: true });
      resolve({ code, signal });
    });
  });

  const waitForLog = (predicate: (line: LogLine) => boolean) =>
    new Promise<LogLine>((resolve, reject) => {
      const look = () => {
        const found = logs.find(predicate);
        if (found) {
          listeners.delete(look);
          resolve(found);
        } else if (done) {
          listeners.delete(look);
          reject(new Error(`bridge exited before the expected log line\nstdout:\n${stdout}\nstderr:\n${stderr}`));
        }
      };
      listeners.add(look);
      look();
    });

  const kill = () => {
    if (!done) child.kill('SIGKILL');
    return exited;
  };
  const bridge: BridgeProcess = { child, logs, stdout: () => stdout, stderr: () => stderr, waitForLog, exited, kill };
  running.add(bridge);
  return bridge;
}

/** Starts the child and resolves once it listens, with its URL. */
export async function spawnBridge(options: LaunchOptions = {}): Promise<RunningBridgeProcess> {
  const bridge = launchBridge(options);
  const line = await bridge.waitForLog((entry) => entry.message === 'bridge listening');
  return { ...bridge, url: String(line.url) };
}

/** Kills every child this module started that is still running (afterEach safety net). */
export async function killAllBridges(): Promise<void> {
  await Promise.all([...running].map((bridge) => bridge.kill()));
}

function parseLine(line: string): LogLine {
  try {
    const parsed: unknown = JSON.parse(line);
    return parsed !== null && typeof parsed === 'object' ? (parsed as LogLine) : { raw: line };
  } catch {
    return { raw: line };
  }
}
