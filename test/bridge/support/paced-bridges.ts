import { sampleValue } from '../../metrics/support/prom-text.ts';
import { postOutboundMessage } from '../../salesforce/support/post-outbound-message.ts';
import type { TestDatabase } from '../../support/real-store.ts';
import { startTestBridge, type TestBridge } from '../../support/test-bridge.ts';

/**
 * Bridges as operators run them (startTestBridge: the real startBridge with its store, worker,
 * pacer, admin API and metrics) on one database, pointed at one upstream, for the pacing and
 * meeting-order tests.
 */

export const ADMIN_KEY = 'pacing-admin-key-0123456789abcdef';
export const MOMENTUM_KEY = 'mk-pacing-test-key';
export const ORG = '00D8d0000001XyZEAU';

/** `stop()` is the graceful stop (SIGTERM's path): running jobs finish, claimed ones go back to the queue. Idempotent. */
export type PacedBridge = TestBridge;

export interface PacedBridgeOptions {
  /** Shared by every bridge of a test; dropped by the test. */
  database: TestDatabase;
  momentumUrl: string;
  /** MOMENTUM_RATE_LIMIT. */
  rateLimit: string;
  /** Further settings (WORKER_CONCURRENCY, Salesforce, mapping…). */
  env?: Record<string, string>;
}

export async function startPacedBridge(options: PacedBridgeOptions): Promise<PacedBridge> {
  return startTestBridge({
    database: options.database,
    env: {
      DATABASE_POOL_MAX: '4',
      ADMIN_API_KEYS: ADMIN_KEY,
      ADMIN_AUTH_FAILURE_LIMIT: 'off',
      INBOUND_RATE_LIMIT: 'off',
      SALESFORCE_ORG_IDS: ORG,
      MOMENTUM_API_KEY: MOMENTUM_KEY,
      MOMENTUM_API_BASE_URL: options.momentumUrl,
      MOMENTUM_RECEIVER_URL: options.momentumUrl,
      MOMENTUM_TIMEOUT_MS: '5000',
      MOMENTUM_RATE_LIMIT: options.rateLimit,
      SHUTDOWN_TIMEOUT_MS: '5000',
      ...options.env,
    },
  });
}

/** A remap of a meeting of its own (source ZOOM:<id>), as an operator posts it through the admin API. */
export const remapOf = (meetingId: string) => ({
  source: { type: 'ZOOM', id: meetingId },
  salesforceRecords: { opportunityId: '0065w000023STAmAAO' },
});

/** Posts an Outbound Message as Salesforce does; resolves once it is acknowledged (stored), else throws. */
export async function postAcknowledged(url: string, xml: string): Promise<void> {
  const response = await postOutboundMessage(url, xml);
  const text = await response.text();
  if (response.status !== 200 || !text.includes('<Ack>true</Ack>'))
    throw new Error(`the Outbound Message was not acknowledged: ${response.status} ${text.slice(0, 300)}`);
}

/**
 * Posts one manual remap per meeting, spread over the bridges in turn, `lanesPerBridge` posts in
 * flight per bridge; every one must be accepted (202). Resolves when each was accepted, by meeting.
 */
export async function postRemaps(urls: readonly string[], meetingIds: readonly string[], lanesPerBridge = 4): Promise<Map<string, number>> {
  const acceptedAt = new Map<string, number>();
  const lanes = Array.from({ length: urls.length * lanesPerBridge }, async (_, lane) => {
    const url = urls[lane % urls.length] as string;
    for (let index = lane; index < meetingIds.length; index += urls.length * lanesPerBridge) {
      const response = await fetch(`${url}/admin/meetings/remap`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify(remapOf(meetingIds[index] as string)),
      });
      if (response.status !== 202) throw new Error(`POST /admin/meetings/remap answered ${response.status}: ${await response.text()}`);
      acceptedAt.set(meetingIds[index] as string, Date.now());
    }
  });
  await Promise.all(lanes);
  return acceptedAt;
}

/** The meeting a manual remap at the upstream names (its source id). */
export const meetingOf = (body: unknown): string | undefined => (body as { source?: { id?: string } } | null)?.source?.id;

/** How many times each meeting reached the upstream; `nameOf` names it from a request body. */
export function timesSent(bodies: readonly unknown[], nameOf: (body: unknown) => string | undefined = meetingOf): Map<string, number> {
  const counts = new Map<string, number>();
  for (const body of bodies) {
    const meeting = nameOf(body);
    if (meeting !== undefined) counts.set(meeting, (counts.get(meeting) ?? 0) + 1);
  }
  return counts;
}

/** `bridge_job_claims_total{kind}` as this bridge's /metrics reports it (0 when absent). */
export async function claimsOf(url: string, kind = 'remap'): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return sampleValue(text, 'bridge_job_claims_total', { kind }) ?? 0;
}

/** GET on the admin API with the key; the parsed JSON body. */
export async function adminGet<T = unknown>(url: string, path: string): Promise<T> {
  const response = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}
