import type { FakeMomentum } from '../../fakes/fake-momentum.ts';
import { ORG_ID } from '../../salesforce/support/outbound-message-builder.ts';
import type { TestDatabase } from '../../support/real-store.ts';
import { startTestBridge, type TestBridge } from '../../support/test-bridge.ts';

export const MOMENTUM_KEY = 'mk-e2e-key';

/** The whole bridge (startTestBridge) taking Outbound Messages from the sample org (ORG_ID) and remapping, unpaced, to the fake Momentum. */
export function startSalesforceBridge(momentum: FakeMomentum, options: { env?: Record<string, string>; database?: TestDatabase } = {}): Promise<TestBridge> {
  return startTestBridge({
    ...(options.database ? { database: options.database } : {}),
    env: { MOMENTUM_RATE_LIMIT: 'off', SALESFORCE_ORG_IDS: ORG_ID, MOMENTUM_API_BASE_URL: momentum.url, MOMENTUM_API_KEY: MOMENTUM_KEY, ...options.env },
  });
}
