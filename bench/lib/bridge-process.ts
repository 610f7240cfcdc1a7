import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { PRODUCTION_NODE_FLAGS } from './production-node-flags.ts';

/**
 * The real process entry (`node src/server.ts`) as a child, the way an operator runs it, in a
 * fresh working directory (so the default `sqlite:data/bridge.db` is its own and no `.env` is
 * read). Its URL comes from the `bridge listening` log line; after that its stdout is drained
 * unread, so log parsing costs nothing in the measuring process.
 */

const serverEntry = path.resolve(import.meta.dirname, '../../src/server.ts');

export interface BridgeChild {
  url: string;
  /** SIGTERM (graceful stop), SIGKILL after the deadline; removes the working directory. */
  stop(): Promise<void>;
}

export async function startBridgeProcess(env: Record<string, string>, timeoutMs = 30_000): Promise<BridgeChild> {
  const cwd = mkdtempSync(path.join(tmpdir(), 'bench-bridge-'));
  // BENCH_CPU_PROF=<dir>: the bridge writes a V8 CPU profile there when it exits.
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child = spawn(process.execPath, [...PRODUCTION_NODE_FLAGS, ...profile, serverEntry], {
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
