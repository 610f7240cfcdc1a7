import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { ORG_ID } from '../../test/salesforce/support/outbound-message-builder.ts';
import { benchNodeFlags } from './production-node-flags.ts';

/**
 * The real process entry (`node src/server.ts`) as a child, the way an operator runs it, in a
 * fresh working directory (so the default `sqlite:data/bridge.db` is its own and no `.env` is
 * read). Its URL comes from the `bridge listening` log line; after that its stdout is drained
 * unread, so log parsing costs nothing in the measuring process.
 */

const serverEntry = path.resolve(import.meta.dirname, '../../src/server.ts');

export interface BridgeChild {
  url: string;
  /** The child's process id (its memory is read from /proc). */
  pid: number;
  /** SIGTERM (graceful stop), SIGKILL after the deadline; removes the working directory. */
  stop(): Promise<void>;
  /** SIGKILL at once, as a crash or an OOM kill would: nothing is flushed, leases stay held; `stop` still cleans up. */
  kill(): Promise<void>;
}

/**
 * The settings of a benchmarked bridge: the org the messages come from, Momentum at the fake
 * with pacing at `rateLimit`, the store at `databaseUrl` (SQLite in the working directory when
 * undefined), and otherwise the defaults. The inbound rate limit is off: one loopback address
 * sends everything, where Salesforce sends from many.
 */
export function bridgeEnv(momentumUrl: string, rateLimit: string, databaseUrl: string | undefined): Record<string, string> {
  return {
    ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
    SALESFORCE_ORG_IDS: ORG_ID,
    MOMENTUM_API_BASE_URL: momentumUrl,
    MOMENTUM_RECEIVER_URL: momentumUrl,
    MOMENTUM_API_KEY: 'bench-key',
    // Read-back's listing calls would share the budget the benchmark measures.
    MOMENTUM_READBACK: 'off',
    MOMENTUM_RATE_LIMIT: rateLimit,
    INBOUND_RATE_LIMIT: 'off',
    // A benchmark's store holds what it measures (a year of data among them): retention would remove it mid-run.
    RETENTION_DAYS: '0',
    ...(process.env.BENCH_ADMIN_POOL ? { DATABASE_ADMIN_POOL_MAX: process.env.BENCH_ADMIN_POOL } : {}),
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
  };
}

export async function startBridgeProcess(env: Record<string, string>, timeoutMs = 30_000): Promise<BridgeChild> {
  const cwd = mkdtempSync(path.join(tmpdir(), 'bench-bridge-'));
  const child = spawn(process.execPath, [...benchNodeFlags(), serverEntry], {
    cwd,
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk.slice(0, 10_000)));
  const exited = once(child, 'exit');

  const url = await new Promise<string>((resolve, reject) => {
    let partial = '';
    const timer = setTimeout(() => reject(new Error(`bridge did not log "bridge listening" within ${timeoutMs} ms\n${stderr}`)), timeoutMs);
    const onData = (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.includes('"bridge listening"')) continue;
        clearTimeout(timer);
        child.stdout.off('data', onData);
        child.stdout.resume();
        resolve(String((JSON.parse(line) as { url: unknown }).url));
        return;
      }
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    void exited.then(([code]) => {
      clearTimeout(timer);
      reject(new Error(`bridge exited with ${String(code)} before listening\n${stderr}`));
    });
  });
  // Keep draining: a full pipe would block the child's log writes and so the bridge itself.
  child.stdout.on('data', () => {});

  return {
    url,
    pid: child.pid ?? 0,
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        await exited;
        clearTimeout(killer);
      }
      rmSync(cwd, { recursive: true, force: true });
    },
  };
}
