import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The org the load messages come from (outbound-message-builder's ORG_ID), configured in its 15-character form. */
export const ALLOWED_ORG_15 = '00D8d0000001XyZ';
export const MOMENTUM_KEY = 'reliability-momentum-key';

export interface BridgeEnvOptions {
  databaseUrl: string;
  momentumUrl: string;
  /** Settings of the scenario (RETRY_SCHEDULE, MOMENTUM_RATE_LIMIT, WORKER_CONCURRENCY…). */
  settings?: Record<string, string>;
}

/**
 * The environment of a bridge child process in a scenario: a real API key (so no sandbox receiver),
 * both Momentum bases on the loopback fake, the load's org allowed. A short WORKER_LEASE_MS (kept
 * alive by the lease keeper's heartbeat while a job runs) brings a crashed process's jobs back
 * within seconds instead of a minute.
 */
export function bridgeEnv(options: BridgeEnvOptions): Record<string, string> {
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATABASE_URL: options.databaseUrl,
    SALESFORCE_ORG_IDS: ALLOWED_ORG_15,
    MOMENTUM_API_KEY: MOMENTUM_KEY,
    // Read-back has its own tests; here its later listing calls would only blur what is measured.
    MOMENTUM_READBACK: 'off',
    MOMENTUM_API_BASE_URL: options.momentumUrl,
    MOMENTUM_RECEIVER_URL: options.momentumUrl,
    MOMENTUM_TIMEOUT_MS: '2000',
    WORKER_LEASE_MS: '5000',
    // One test client posts for a whole sales org: the per-address inbound limit is not under test here.
    INBOUND_RATE_LIMIT: 'off',
    ...options.settings,
  };
}

/** A temporary directory for a scenario's SQLite file, outliving the bridge processes that use it. */
export function scenarioDir(prefix: string): { dir: string; sqliteFile: string; remove: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), `reliability-${prefix}-`));
  return { dir, sqliteFile: path.join(dir, 'bridge.db'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** One greppable line per scenario, so the CI log carries the evidence (counts, duplicates, timings). */
export function reportSummary(scenario: string, fields: Record<string, string | number | boolean>): void {
  const text = Object.entries(fields)
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');
  console.log(`[reliability] ${scenario}: ${text}`);
}
