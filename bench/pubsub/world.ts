import { fileURLToPath } from 'node:url';

import { createFakePubSub, type FakePubSub } from '../../test/fakes/fake-pubsub.ts';
import { type FakeSalesforceOrg, startFakeSalesforceOrg } from '../../test/fakes/fake-salesforce-org/index.ts';
import { orgOf } from '../../test/fakes/fake-salesforce-records.ts';
import { TEST_CERT_FILE } from '../../test/fakes/trust-test-ca.ts';
import { ORG_ID } from '../../test/salesforce/support/outbound-message-builder.ts';
import { type Arrivals, arrivals, titleOf } from '../lib/arrivals.ts';
import { bridgeEnv } from '../lib/bridge-process.ts';
import { startMomentumFake } from '../lib/momentum-fake.ts';

/**
 * The loopback world a benchmarked bridge with Change Data Capture talks to, all in the bench
 * process (one clock): the fake org's REST and OAuth, the fake Pub/Sub over TLS accepting the
 * tokens the org issues (as test/salesforce/pubsub/support/cdc-world.ts wires them), and the
 * bench's light fake Momentum recording each remap's arrival by title.
 */

export const EVENTS = '/data/EventChangeEvent';
export const OPPORTUNITIES = '/data/OpportunityChangeEvent';
export const ADMIN_KEY = 'bench-pubsub-admin-key-0123456789abcdef';
const APP = { clientId: 'bench-app', clientSecret: 'bench-secret' };
/** Pacing on (the claim reads and writes the call log), never the wait: far above what the phases send. */
export const RATE_LIMIT = '1000/1s';
/** Salesforce sends a keepalive within 270 s of nothing; shorter here, so idle streams keep storing one. */
const KEEPALIVE_MS = 5_000;

export interface PubSubWorld {
  pubsub: FakePubSub;
  org: FakeSalesforceOrg;
  remaps: Arrivals;
  /** Remap calls received, whatever their title. */
  remapCount(): number;
  /** The settings of a bridge on `databaseUrl` streaming both topics against this world. */
  env(databaseUrl: string, start: 'LATEST' | 'EARLIEST'): Record<string, string>;
  close(): Promise<void>;
}

export async function startPubSubWorld(): Promise<PubSubWorld> {
  const relay: { accept?: (token: string) => void } = {};
  const org = await startFakeSalesforceOrg({ org: { ...orgOf({}), Event: [] }, ...APP, onToken: (token) => relay.accept?.(token) });
  const pubsub = createFakePubSub({ tokens: [], keepaliveMs: KEEPALIVE_MS, orgId: ORG_ID, instanceUrl: org.url });
  relay.accept = (token) => pubsub.addValidToken(token);
  const endpoint = await pubsub.start();
  const remaps = arrivals();
  let count = 0;
  const momentum = await startMomentumFake({
    clock: () => performance.now(),
    onCall: ({ body, at }) => {
      count += 1;
      remaps.record(titleOf(body), at);
    },
  });
  return {
    pubsub,
    org,
    remaps,
    remapCount: () => count,
    env: (databaseUrl, start) => ({
      ...bridgeEnv(momentum.url, RATE_LIMIT, databaseUrl),
      ADMIN_API_KEYS: ADMIN_KEY,
      SALESFORCE_LOGIN_URL: org.url,
      SALESFORCE_CLIENT_ID: APP.clientId,
      SALESFORCE_CLIENT_SECRET: APP.clientSecret,
      SALESFORCE_PUBSUB: 'on',
      SALESFORCE_PUBSUB_TOPICS: `${EVENTS},${OPPORTUNITIES}`,
      SALESFORCE_PUBSUB_ENDPOINT: endpoint,
      SALESFORCE_PUBSUB_START: start,
      // grpc-js trusts only what the bridge hands it: the system roots plus this file (src/salesforce/pubsub/trust.ts).
      NODE_EXTRA_CA_CERTS: fileURLToPath(TEST_CERT_FILE),
    }),
    async close() {
      await pubsub.close();
      await org.close();
      await momentum.close();
    },
  };
}
