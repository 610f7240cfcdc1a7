import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { type RunningBridge, startBridge } from '../../../src/bridge.ts';
import { parseConfig } from '../../../src/core/config.ts';
import { captureLogs } from '../../support/log-capture.ts';

/** The real startBridge on a fresh SQLite file and port 0; `dispose` stops it and removes the file. */
export async function bridgeUnderTest(env: Record<string, string>): Promise<{ bridge: RunningBridge; dispose: () => Promise<void> }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bridge-e2e-'));
  const config = parseConfig({ PORT: '0', HOST: '127.0.0.1', DATABASE_URL: `sqlite:${path.join(dir, 'bridge.db')}`, MOMENTUM_RATE_LIMIT: 'off', ...env });
  const bridge = await startBridge(config, captureLogs({ level: 'warn' }).logger);
  return {
    bridge,
    dispose: async () => {
      await bridge.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
