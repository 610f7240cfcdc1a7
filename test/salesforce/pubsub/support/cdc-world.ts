import { fileURLToPath } from 'node:url';

import { vi } from 'vitest';

import { WEBHOOK_SECRET } from '../../../calendar/support/signed-events.ts';
import { type FakeMomentum, startFakeMomentum } from '../../../fakes/fake-momentum.ts';
import { createFakePubSub, type FakePubSub, type FakePubSubOptions } from '../../../fakes/fake-pubsub.ts';
import { type FakeSalesforceOrg, type JsonOrg, startFakeSalesforceOrg } from '../../../fakes/fake-salesforce-org/index.ts';
import { orgOf, type Tables } from '../../../fakes/fake-salesforce-records.ts';
import { TEST_CERT_FILE } from '../../../fakes/trust-test-ca.ts';
import type { Cleanup } from '../../../support/cleanups.ts';
import { type TestDatabase, testDatabase } from '../../../support/real-store.ts';
import { queryRows } from '../../../support/stored-state.ts';
import { startTestBridge, type TestBridge } from '../../../support/test-bridge.ts';
import { waitFor } from '../../../support/wait-for.ts';
import { ORG_ID } from '../../support/outbound-message-builder.ts';

/*
 * The world the Change Data Capture tests through the bridge share: one Salesforce org seen
 * through two fake APIs — REST (SOQL over a JSON org, OAuth) and Pub/Sub (gRPC over TLS) — that
 * accept the same access tokens, a fake Momentum, and the settings that point a bridge at them.
 */

export const SALESFORCE_APP = { clientId: 'bridge-app', clientSecret: 'right-secret' };
export const EVENTS = '/data/EventChangeEvent';
export const OPPORTUNITIES = '/data/OpportunityChangeEvent';

export interface CdcWorld {
  org: FakeSalesforceOrg;
  pubsub: FakePubSub;
  momentum: FakeMomentum;
  database: TestDatabase;
  env: Record<string, string>;
  /** A bridge on the world's database (several in turn, or side by side on PostgreSQL). */
  startBridge(env?: Record<string, string>): Promise<TestBridge>;
}

export async function startCdcWorld(
  engine: 'sqlite' | 'postgres',
  cleanups: Cleanup[],
  options: { tables?: Tables; events?: Array<Record<string, unknown>>; pubsub?: FakePubSubOptions } = {},
): Promise<CdcWorld> {
  // grpc-js trusts only GRPC_DEFAULT_SSL_ROOTS_FILE_PATH unless told otherwise: the bridge adds the file NODE_EXTRA_CA_CERTS names.
  vi.stubEnv('NODE_EXTRA_CA_CERTS', fileURLToPath(TEST_CERT_FILE));
  cleanups.push(async () => void vi.unstubAllEnvs());
  const jsonOrg: JsonOrg = { ...orgOf(options.tables ?? {}), Event: options.events ?? [] };
  // Tokens are issued only once a bridge signs in, after the fake Pub/Sub exists.
  const relay: { accept?: (token: string) => void } = {};
  const org = await startFakeSalesforceOrg({ org: jsonOrg, ...SALESFORCE_APP, onToken: (token) => relay.accept?.(token) });
  // The fake Pub/Sub checks the instance URL the token answer named: the REST fake's own.
  const pubsub = createFakePubSub({ tokens: [], keepaliveMs: 100, ...options.pubsub, orgId: ORG_ID, instanceUrl: org.url });
  relay.accept = (token) => pubsub.addValidToken(token);
  const endpoint = await pubsub.start();
  const momentum = await startFakeMomentum();
  const database = testDatabase(engine, 'cdc');
  cleanups.push(database.drop, org.close, pubsub.close, momentum.close);
  const env = {
    DATABASE_URL: database.url,
    MOMENTUM_API_BASE_URL: momentum.url,
    MOMENTUM_API_KEY: 'mk-test-key',
    MOMENTUM_RATE_LIMIT: 'off',
    CALENDAR_WEBHOOK_SECRETS: WEBHOOK_SECRET,
    INTERNAL_EMAIL_DOMAINS: 'example.com',
    SALESFORCE_LOGIN_URL: org.url,
    SALESFORCE_CLIENT_ID: SALESFORCE_APP.clientId,
    SALESFORCE_CLIENT_SECRET: SALESFORCE_APP.clientSecret,
    SALESFORCE_PUBSUB: 'on',
    SALESFORCE_PUBSUB_TOPICS: `${EVENTS},${OPPORTUNITIES}`,
    SALESFORCE_PUBSUB_ENDPOINT: endpoint,
    SALESFORCE_PUBSUB_START: 'EARLIEST',
  };
  return {
    org,
    pubsub,
    momentum,
    database,
    env,
    async startBridge(extra = {}) {
      const bridge = await startTestBridge({ database, env: { ...env, ...extra } });
      cleanups.push(bridge.stop);
      return bridge;
    },
  };
}

/** The stored replay id of a topic, in hex ('' when none). */
export async function storedReplayId(bridge: TestBridge, topic: string): Promise<string> {
  const cursor = await (await bridge.store()).pubsub.get(ORG_ID, topic);
  return cursor?.replayId ? Buffer.from(cursor.replayId).toString('hex') : '';
}

/** Waits until the topic's stored replay id is `hex`. */
export async function waitForReplayId(bridge: TestBridge, topic: string, hex: string, timeoutMs = 15_000): Promise<void> {
  let seen = '';
  await waitFor(`the ${topic} cursor to reach ${hex}`, async () => (seen = await storedReplayId(bridge, topic)) === hex, timeoutMs, {
    intervalMs: 25,
    lastSeen: () => `stored: ${seen || 'none'}`,
  });
}

/** The inbound events the subscriber stored, oldest first: their dedupe keys and notifications. */
export async function storedCdcEvents(bridge: Pick<TestBridge, 'databaseUrl'>): Promise<Array<{ dedupeKey: string; payload: Record<string, unknown> }>> {
  const rows = await queryRows(bridge.databaseUrl, `SELECT dedupe_key, parsed_payload FROM inbound_events WHERE source = 'salesforce' ORDER BY id`);
  return rows.map((row) => ({
    dedupeKey: String(row.dedupe_key),
    payload: (typeof row.parsed_payload === 'string' ? JSON.parse(row.parsed_payload) : row.parsed_payload) as Record<string, unknown>,
  }));
}
