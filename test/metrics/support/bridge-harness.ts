import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { type RunningBridge, startBridge } from '../../../src/bridge.ts';
import { parseConfig } from '../../../src/core/config.ts';
import { createFakeMomentum, type FakeMomentum } from '../../fakes/fake-momentum.ts';
import { captureLogs, type LogCapture } from '../../support/log-capture.ts';
import { waitFor } from '../../support/wait-for.ts';

export const ALLOWED_ORG = '00D8d0000001XyZ';

export interface BridgeHarness {
  bridge: RunningBridge;
  momentum: FakeMomentum;
  logs: LogCapture;
  /** The SQLite file of this bridge (its own temporary directory). */
  file: string;
  postSalesforce(xml: string, headers?: Record<string, string>): Promise<Response>;
  scrape(headers?: Record<string, string>): Promise<string>;
  /** Scrapes until `ready(text)` holds (the worker runs in the background), or fails after 10 s. */
  scrapeUntil(ready: (text: string) => boolean, what: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * The real bridge as server.ts starts it (startBridge: createApp, SQLite store, worker, Momentum
 * client) on loopback, forwarding to a fake Momentum. `env` adds to or overrides the settings.
 */
export async function startBridgeHarness(env: Record<string, string> = {}): Promise<BridgeHarness> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bridge-metrics-'));
  const file = path.join(dir, 'bridge.db');
  const momentum = createFakeMomentum();
  await momentum.start();
  const config = parseConfig({
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: '0',
    DATABASE_URL: `sqlite:${file}`,
    MOMENTUM_API_KEY: 'test-momentum-key',
    MOMENTUM_API_BASE_URL: momentum.url,
    MOMENTUM_RECEIVER_URL: momentum.url,
    MOMENTUM_RATE_LIMIT: 'off',
    MOMENTUM_TIMEOUT_MS: '5000',
    RETRY_SCHEDULE: '0s,0s',
    SALESFORCE_ORG_IDS: ALLOWED_ORG,
    SHUTDOWN_TIMEOUT_MS: '2000',
    ...env,
  });
  const logs = captureLogs({ level: 'info' });
  const bridge = await startBridge(config, logs.logger);

  const scrape = async (headers: Record<string, string> = {}) => {
    const response = await fetch(`${bridge.url}/metrics`, { headers });
    if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}`);
    return response.text();
  };
  return {
    bridge,
    momentum,
    logs,
    file,
    postSalesforce: (xml, headers = {}) =>
      fetch(`${bridge.url}/salesforce/outbound-message`, {
        method: 'POST',
        headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: '""', ...headers },
        body: xml,
      }),
    scrape,
    async scrapeUntil(ready, what) {
      let text = '';
      const bridgeLines = () =>
        text
          .split('\n')
          .filter((line) => line.startsWith('bridge_'))
          .join('\n');
      await waitFor(what, async () => ready((text = await scrape())), 10_000, { intervalMs: 25, lastSeen: () => `last scrape:\n${bridgeLines()}` });
      return text;
    },
    async close() {
      await bridge.stop();
      await momentum.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
