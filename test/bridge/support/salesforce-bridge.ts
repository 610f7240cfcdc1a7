import type { FakeMomentum } from '../../fakes/fake-momentum.ts';
import { ORG_ID } from '../../salesforce/support/outbound-message-builder.ts';
import type { Engine, TestDatabase } from '../../support/real-store.ts';
import { startTestBridge, type TestBridge } from '../../support/test-bridge.ts';

export const MOMENTUM_KEY = 'mk-e2e-key';
/** The admin API key the bridge takes (GET /admin/deliveries and the like). */
export const ADMIN_KEY = 'sf-e2e-admin-key-0123456789';

export interface SalesforceBridgeOptions {
  env?: Record<string, string>;
  /** A database of the test's own (dropped by the test); else one of the bridge's own on `engine`. */
  database?: TestDatabase;
  /** The engine of the bridge's own database (default SQLite). */
  engine?: Engine;
}

/** The whole bridge (startTestBridge) taking Outbound Messages from the sample org (ORG_ID) and remapping, unpaced, to the fake Momentum. */
export function startSalesforceBridge(momentum: FakeMomentum, options: SalesforceBridgeOptions = {}): Promise<TestBridge> {
  return startTestBridge({
    ...(options.database ? { database: options.database } : {}),
    ...(options.engine ? { engine: options.engine } : {}),
    env: {
      MOMENTUM_RATE_LIMIT: 'off',
      SALESFORCE_ORG_IDS: ORG_ID,
      MOMENTUM_API_BASE_URL: momentum.url,
      MOMENTUM_API_KEY: MOMENTUM_KEY,
      ADMIN_API_KEYS: ADMIN_KEY,
      ...options.env,
    },
  });
}
