import request from 'supertest';

import { postCalendarEvent, TEAMS_MEETING, WEBHOOK_SECRET } from '../../calendar/support/signed-events.ts';
import { type FakeMomentum, startFakeMomentum } from '../../fakes/fake-momentum.ts';
import type { Cleanup } from '../../support/cleanups.ts';
import { type Engine, testDatabase } from '../../support/real-store.ts';
import { queryRows } from '../../support/stored-state.ts';
import { startTestBridge, type TestBridge } from '../../support/test-bridge.ts';
import { KEY } from './admin-app.ts';

/*
 * The whole bridge (startBridge) taking signed calendar events and delivering to a fake Momentum,
 * with the admin API: the world of the "why this record?" tests. Without a CRM unless the test
 * gives Salesforce settings (a loopback org), so explicit ids and pins decide.
 */

export const MEETING_ID = 'teams-42';
/** The meeting key of a signed event with id `id`: the map-event job's serial key (source, origin, id). */
export const meetingKey = (id = MEETING_ID) => `calendar:calendar:${id}`;
export const meetingPath = (id = MEETING_ID) => `/admin/meetings/${encodeURIComponent(meetingKey(id))}`;

export interface MatchWorld {
  momentum: FakeMomentum;
  bridge: TestBridge;
  get(path: string): request.Test;
  put(path: string, body: object): request.Test;
  delete(path: string): request.Test;
  post(path: string): request.Test;
  /** Posts a signed Teams meeting (`id`, one external attendee) with `overrides`; expects 202. */
  meeting(webhookId: string, overrides?: Record<string, unknown>): Promise<void>;
  /** Rows of the bridge's database (`$n` placeholders). */
  rows(sql: string, params?: unknown[]): Promise<Array<Record<string, unknown>>>;
}

export async function startMatchWorld(engine: Engine, cleanups: Cleanup[], env: Record<string, string> = {}): Promise<MatchWorld> {
  const momentum = await startFakeMomentum();
  const database = testDatabase(engine, 'match-admin');
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
      RETRY_SCHEDULE: '0,20',
      CALENDAR_WEBHOOK_SECRETS: WEBHOOK_SECRET,
      INTERNAL_EMAIL_DOMAINS: 'example.com',
      ...env,
    },
  });
  cleanups.push(bridge.stop);
  const auth = (test: request.Test) => test.set('Authorization', `Bearer ${KEY}`);
  return {
    momentum,
    bridge,
    get: (path) => auth(request(bridge.url).get(path)),
    put: (path, body) => auth(request(bridge.url).put(path)).send(body),
    delete: (path) => auth(request(bridge.url).delete(path)),
    post: (path) => auth(request(bridge.url).post(path)),
    async meeting(webhookId, overrides = {}) {
      const response = await postCalendarEvent(bridge.url, JSON.stringify({ ...TEAMS_MEETING, id: MEETING_ID, ...overrides }), { id: webhookId });
      if (response.status !== 202) throw new Error(`the signed event ${webhookId} was answered ${response.status}: ${await response.text()}`);
    },
    rows: (sql, params = []) => queryRows(bridge.databaseUrl, sql, params),
  };
}
