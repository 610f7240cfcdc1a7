import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';

import { benchNodeFlags } from './production-node-flags.ts';

/**
 * Runs a server under test in its own process, so it has a core to itself while the load
 * generator runs on the other (a 2-core machine: sharing one event loop would measure the sum of
 * both). Children speak a tiny IPC protocol: `{ type: 'ready', url }` once listening, and on
 * `{ type: 'stop' }` they close and answer `{ type: 'stopped', ...details }` before exiting.
 */

export interface ChildMessage {
  type: string;
  [key: string]: unknown;
}

export interface BenchChild {
  url: string;
  /** Sends a request and resolves with the child's first answer of `replyType`. */
  ask(message: ChildMessage, replyType: string, timeoutMs?: number): Promise<ChildMessage>;
  /** Graceful stop; SIGKILL if the child does not exit within the deadline. */
  stop(timeoutMs?: number): Promise<ChildMessage | undefined>;
}

export async function startChild(script: string, args: string[], env: Record<string, string> = {}, readyTimeoutMs = 30_000): Promise<BenchChild> {
  const child = fork(script, args, {
    env: { PATH: process.env.PATH ?? '', ...env },
    execArgv: benchNodeFlags(),
    // The servers' own logs are not the measurement: they go nowhere, as they would to a log shipper.
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const exited = once(child, 'exit');
  const ready = waitFor(child, 'ready', readyTimeoutMs);
  const first = await Promise.race([ready, exited.then(([code]) => Promise.reject(new Error(`${script} exited with ${String(code)} before it was ready`)))]);
  const url = String(first.url);

  const ask = (message: ChildMessage, replyType: string, timeoutMs = 30_000) => {
    const reply = waitFor(child, replyType, timeoutMs);
    child.send(message);
    return reply;
  };

  return {
    url,
    ask,
    async stop(timeoutMs = 60_000) {
      if (child.exitCode !== null || child.signalCode !== null) return undefined;
      try {
        const details = await ask({ type: 'stop' }, 'stopped', timeoutMs);
        await exited;
        return details;
      } catch (error) {
        child.kill('SIGKILL');
        await exited;
        throw error;
      }
    },
  };
}

function waitFor(child: ChildProcess, type: string, timeoutMs: number): Promise<ChildMessage> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.off('message', onMessage);
      reject(new Error(`child did not send "${type}" within ${timeoutMs} ms`));
    }, timeoutMs);
    const onMessage = (message: ChildMessage) => {
      if (message?.type !== type) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(message);
    };
    child.on('message', onMessage);
  });
}

/** The child side: announce readiness, then run `onStop` when the parent asks and exit. */
export function serveChild(
  url: string,
  onStop: () => Promise<Record<string, unknown>>,
  onAsk: Record<string, () => Promise<Record<string, unknown>>> = {},
): void {
  const send = (message: ChildMessage) => process.send?.(message);
  process.on('message', (message: ChildMessage) => {
    if (message.type === 'stop') {
      void onStop().then(
        // Exit only once the reply is handed to the channel, or the parent never sees it.
        (details) => void process.send?.({ type: 'stopped', ...details }, undefined, {}, () => process.exit(0)),
        (error: unknown) => {
          process.stderr.write(`bench child failed to stop: ${String(error)}\n`);
          process.exit(1);
        },
      );
      return;
    }
    const handler = onAsk[message.type];
    if (handler) void handler().then((details) => send({ type: `${message.type}:reply`, ...details }));
  });
  // The parent died (Ctrl-C, crash): do not linger holding a port.
  process.on('disconnect', () => process.exit(0));
  send({ type: 'ready', url });
}
