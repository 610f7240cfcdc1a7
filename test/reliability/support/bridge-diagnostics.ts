import type { BridgeProcess } from '../../support/spawn-bridge.ts';
import { waitFor } from '../../support/wait-for.ts';

/**
 * What a failing scenario needs to say about the bridge: did it exit (and why), does it still
 * answer /healthz (a blocked event loop does not), and its last error lines.
 */
export async function describeBridge(bridge: BridgeProcess & { url?: string }): Promise<string> {
  const { exitCode, signalCode } = bridge.child;
  const exited = exitCode !== null || signalCode !== null;
  let health = 'not asked';
  if (!exited && bridge.url !== undefined) {
    health = await fetch(`${bridge.url}/healthz`, { signal: AbortSignal.timeout(2000) }).then(
      (response) => String(response.status),
      () => 'no answer within 2 s (event loop blocked?)',
    );
  }
  const describe = (line: Record<string, unknown>) => `${String(line.message)}: ${JSON.stringify(line.error ?? '').slice(0, 300)}`;
  // server.ts logs why it exits (uncaught exception, unhandled rejection): that line first.
  const fatal = bridge.logs.find((line) => /uncaught|unhandled/i.test(String(line.message)));
  const errors = bridge.logs
    .filter((line) => line.level === 'error' && line !== fatal)
    .slice(-2)
    .map(describe);
  const state = exited ? `exited (code ${exitCode}, signal ${signalCode})` : 'still running';
  return `bridge ${state}; /healthz: ${health}; fatal: ${fatal ? describe(fatal) : 'none'}; last errors: ${errors.join(' | ') || 'none'}`;
}

/** waitFor, failing at once if the bridge exits, with the bridge's state in the failure message. */
export async function waitForBridge(
  bridge: BridgeProcess & { url?: string },
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const alive = async () => {
    if (bridge.child.exitCode !== null || bridge.child.signalCode !== null) throw new Error(`the bridge exited while waiting for ${what}`);
    return check();
  };
  try {
    await waitFor(what, alive, timeoutMs);
  } catch (error) {
    throw new Error(`${(error as Error).message}; ${await describeBridge(bridge)}`, { cause: error });
  }
}
