import { createFakeMomentum, type FakeMomentum } from '../../fakes/fake-momentum.ts';
import { postOutboundMessage } from '../../salesforce/support/post-outbound-message.ts';
import type { LogCapture } from '../../support/log-capture.ts';
import { startTestBridge, type TestBridge } from '../../support/test-bridge.ts';
import { waitFor } from '../../support/wait-for.ts';

export const ALLOWED_ORG = '00D8d0000001XyZ';

export interface BridgeHarness {
  bridge: TestBridge;
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
 * The real bridge (startTestBridge: startBridge on a SQLite file of its own) forwarding to a fake
 * Momentum, with helpers to post like Salesforce and to scrape /metrics. `env` adds to or overrides the settings.
 */
export async function startBridgeHarness(env: Record<string, string> = {}): Promise<BridgeHarness> {
  const momentum = createFakeMomentum();
  await momentum.start();
  const bridge = await startTestBridge({
    env: {
      MOMENTUM_API_KEY: 'test-momentum-key',
      MOMENTUM_API_BASE_URL: momentum.url,
      MOMENTUM_RECEIVER_URL: momentum.url,
      MOMENTUM_RATE_LIMIT: 'off',
      MOMENTUM_TIMEOUT_MS: '5000',
      RETRY_SCHEDULE: '0s,0s',
      SALESFORCE_ORG_IDS: ALLOWED_ORG,
      SHUTDOWN_TIMEOUT_MS: '2000',
      ...env,
    },
    logLevel: 'info',
  });

  const scrape = async (headers: Record<string, string> = {}) => {
    const response = await fetch(`${bridge.url}/metrics`, { headers });
    if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}`);
    return response.text();
  };
  return {
    bridge,
    momentum,
    logs: bridge.logs,
    file: bridge.file!,
    postSalesforce: (xml, headers = {}) => postOutboundMessage(bridge.url, xml, headers),
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
    },
  };
}
