import { createFakeMomentum, type FakeMomentum } from '../../fakes/fake-momentum.ts';
import { postOutboundMessage } from '../../salesforce/support/post-outbound-message.ts';
import type { LogCapture } from '../../support/log-capture.ts';
import { type Engine, testDatabase } from '../../support/real-store.ts';
import type { StoredCounts } from '../../support/stored-rows.ts';
import { startTestBridge, type TestBridge } from '../../support/test-bridge.ts';
import { waitFor } from '../../support/wait-for.ts';

export const ALLOWED_ORG = '00D8d0000001XyZ';

/** A bridge harness on either engine. */
export interface EngineBridgeHarness {
  bridge: TestBridge;
  momentum: FakeMomentum;
  logs: LogCapture;
  /** The bridge's DATABASE_URL (a database of its own), for the readers in stored-state.ts. */
  databaseUrl: string;
  /** Rows in the store's tables. */
  counts(): Promise<StoredCounts>;
  postSalesforce(xml: string, headers?: Record<string, string>): Promise<Response>;
  scrape(headers?: Record<string, string>): Promise<string>;
  /** Scrapes until `ready(text)` holds (the worker runs in the background), or fails after 10 s. */
  scrapeUntil(ready: (text: string) => boolean, what: string): Promise<string>;
  /** Stops the bridge and the fake, then drops the database. */
  close(): Promise<void>;
}

/** The harness on SQLite, with the database file for the readers in stored-rows.ts. */
export interface BridgeHarness extends EngineBridgeHarness {
  file: string;
}

/**
 * The real bridge (startTestBridge: startBridge on a database of its own, SQLite unless `engine`
 * says otherwise) forwarding to a fake Momentum, with helpers to post like Salesforce and to
 * scrape /metrics. `env` adds to or overrides the settings.
 */
export async function startBridgeHarness(env?: Record<string, string>): Promise<BridgeHarness>;
export async function startBridgeHarness(env: Record<string, string>, engine: Engine): Promise<EngineBridgeHarness>;
export async function startBridgeHarness(env: Record<string, string> = {}, engine: Engine = 'sqlite'): Promise<EngineBridgeHarness> {
  const momentum = createFakeMomentum();
  await momentum.start();
  const database = testDatabase(engine, 'metrics_bridge');
  const bridge = await startTestBridge({
    database,
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
  }).catch(async (error: unknown) => {
    await momentum.close();
    await database.drop();
    throw error;
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
    databaseUrl: bridge.databaseUrl,
    counts: () => database.counts(),
    ...(database.file === undefined ? {} : { file: database.file }),
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
      await database.drop();
    },
  };
}
