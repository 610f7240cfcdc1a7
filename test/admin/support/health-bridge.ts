import { healthSchema } from '../../../src/admin/health-schemas.ts';
import type { FakeMomentum } from '../../fakes/fake-momentum.ts';
import type { TestDatabase } from '../../support/real-store.ts';
import { startTestBridge, type TestBridge } from '../../support/test-bridge.ts';
import { KEY } from './admin-app.ts';

/** The Momentum key of the bridges the health tests start with one (never the sandbox). */
export const HEALTH_MOMENTUM_KEY = 'mk-health-test-key-0123456789';

export interface HealthBridgeOptions {
  database: TestDatabase;
  /** Momentum at this fake with HEALTH_MOMENTUM_KEY; absent, the sandbox. */
  momentum?: FakeMomentum;
  env?: Record<string, string>;
}

/** The whole bridge (startBridge) with the admin API, a short retry schedule, on the test's database. */
export function startHealthBridge(options: HealthBridgeOptions): Promise<TestBridge> {
  const momentum: Record<string, string> = options.momentum
    ? { MOMENTUM_API_KEY: HEALTH_MOMENTUM_KEY, MOMENTUM_API_BASE_URL: options.momentum.url, MOMENTUM_RECEIVER_URL: options.momentum.url }
    : {};
  return startTestBridge({
    database: options.database,
    env: {
      ADMIN_API_KEYS: KEY,
      ADMIN_AUTH_FAILURE_LIMIT: 'off',
      INBOUND_RATE_LIMIT: 'off',
      MOMENTUM_TIMEOUT_MS: '5000',
      RETRY_SCHEDULE: '50,50',
      SHUTDOWN_TIMEOUT_MS: '5000',
      ...momentum,
      ...options.env,
    },
  });
}

export type Health = ReturnType<typeof healthSchema.parse>;

/** GET /admin/health with the key: the answer, checked against its own schema (the OpenAPI document's). */
export async function getHealth(url: string): Promise<Health> {
  const response = await fetch(`${url}/admin/health`, { headers: { authorization: `Bearer ${KEY}` } });
  if (response.status !== 200) throw new Error(`GET /admin/health answered ${response.status}: ${await response.text()}`);
  return healthSchema.parse(await response.json());
}

/** One integration of the answer, by name. */
export function integration(health: Health, name: Health['integrations'][number]['name']): Health['integrations'][number] {
  const found = health.integrations.find((entry) => entry.name === name);
  if (found === undefined) throw new Error(`no integration ${name} in ${JSON.stringify(health.integrations)}`);
  return found;
}

/** A manual remap of a meeting of its own, as an operator posts it; resolves with the delivery id (202). */
export async function postRemap(url: string, meetingId: string): Promise<number> {
  const response = await fetch(`${url}/admin/meetings/remap`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ source: { type: 'ZOOM', id: meetingId }, salesforceRecords: { opportunityId: '0065w000023STAmAAO' } }),
  });
  if (response.status !== 202) throw new Error(`POST /admin/meetings/remap answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { delivery: { id: number } }).delivery.id;
}
