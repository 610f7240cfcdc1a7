import request from 'supertest';

import { KEY } from '../../admin/support/admin-app.ts';
import { postCalendarEvent, TEAMS_MEETING, WEBHOOK_SECRET } from '../../calendar/support/signed-events.ts';
import { type FakeMomentum, startFakeMomentum } from '../../fakes/fake-momentum.ts';
import type { Cleanup } from '../../support/cleanups.ts';
import { type Engine, testDatabase } from '../../support/real-store.ts';
import { queryRows } from '../../support/stored-state.ts';
import { startTestBridge, type TestBridge } from '../../support/test-bridge.ts';
import { waitFor } from '../../support/wait-for.ts';

/*
 * The whole bridge (startBridge) with read-back on, taking signed calendar events whose own
 * Salesforce ids decide the remap, delivering to a fake Momentum that lists the meetings it holds,
 * with the admin API and /metrics.
 */

export const HOST = 'ana.rep@example.com';
export const SENT_OPPORTUNITY = '0068d0000101XyZAAU';
export const OTHER_OPPORTUNITY = '0068d0000202XyZAAU';

export interface ReadbackWorld {
  momentum: FakeMomentum;
  bridge: TestBridge;
  get(path: string): request.Test;
  /** Posts a signed Teams meeting naming SENT_OPPORTUNITY, with `overrides`; expects 202. */
  meeting(webhookId: string, overrides?: Record<string, unknown>): Promise<void>;
  rows(sql: string, params?: unknown[]): Promise<Array<Record<string, unknown>>>;
  /** Waits until every delivered row due for read-back has an outcome. */
  readBack(count: number): Promise<void>;
}

export async function startReadbackWorld(engine: Engine, cleanups: Cleanup[], env: Record<string, string> = {}): Promise<ReadbackWorld> {
  const momentum = await startFakeMomentum();
  const database = testDatabase(engine, 'readback');
  cleanups.push(momentum.close, database.drop);
  const bridge = await startTestBridge({
    database,
    logLevel: 'info',
    env: {
      ADMIN_API_KEYS: KEY,
      MOMENTUM_API_KEY: 'momentum-test-key-0123456789',
      MOMENTUM_API_BASE_URL: momentum.url,
      MOMENTUM_RECEIVER_URL: momentum.url,
      MOMENTUM_RATE_LIMIT: 'off',
      MOMENTUM_READBACK: 'on',
      MOMENTUM_READBACK_DELAY: '100ms',
      RETRY_SCHEDULE: '0,20',
      CALENDAR_WEBHOOK_SECRETS: WEBHOOK_SECRET,
      INTERNAL_EMAIL_DOMAINS: 'example.com',
      ...env,
    },
  });
  cleanups.push(bridge.stop);
  const rows = (sql: string, params: unknown[] = []) => queryRows(bridge.databaseUrl, sql, params);
  return {
    momentum,
    bridge,
    get: (path) => request(bridge.url).get(path).set('Authorization', `Bearer ${KEY}`),
    async meeting(webhookId, overrides = {}) {
      const body = JSON.stringify({ ...TEAMS_MEETING, organizer: { email: HOST }, salesforce: { opportunityId: SENT_OPPORTUNITY }, ...overrides });
      const response = await postCalendarEvent(bridge.url, body, { id: webhookId });
      if (response.status !== 202) throw new Error(`the signed meeting was answered ${response.status}: ${await response.text()}`);
    },
    rows,
    readBack: (count) =>
      waitFor(
        `${count} deliveries read back`,
        async () => (await rows('SELECT job_id FROM delivered_meetings WHERE readback_outcome IS NOT NULL')).length >= count,
        15_000,
      ),
  };
}
