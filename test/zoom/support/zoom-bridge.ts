import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { KEY as ADMIN_KEY } from '../../admin/support/admin-app.ts';
import { WEBHOOK_SECRET } from '../../calendar/support/signed-events.ts';
import { type FakeMomentum, type RecordedRequest, startFakeMomentum } from '../../fakes/fake-momentum.ts';
import { type FakeZoom, startFakeZoom } from '../../fakes/fake-zoom.ts';
import { ORG_ID } from '../../salesforce/support/outbound-message-builder.ts';
import type { Cleanup } from '../../support/cleanups.ts';
import type { Engine } from '../../support/real-store.ts';
import { queryRows, type Row } from '../../support/stored-state.ts';
import { startTestBridge, type TestBridge } from '../../support/test-bridge.ts';

/*
 * The whole bridge (startBridge) on one engine with a fake Momentum and a fake Zoom (webhook
 * sender, OAuth, participants API) on loopback, for the recording tests of this folder.
 */

export const SECRET = 'zoom-secret-token-0001';
export const ZOOM_APP = { accountId: 'D8cJuqWVQ623CI4Q8yQK0Q', clientId: 'zoom-client', clientSecret: 'zoom-client-secret' };
export { ADMIN_KEY };

export interface ZoomBridge {
  momentum: FakeMomentum;
  zoom: FakeZoom;
  bridge: TestBridge;
  /** `POST` here as Zoom's webhook sender does. */
  url: string;
  databaseUrl: string;
}

export interface ZoomBridgeOptions {
  /** Settings on top of the defaults (Momentum, Zoom, Salesforce org, signed secret, admin key, a short retry schedule). */
  env?: Record<string, string>;
  /** false: no Server-to-Server OAuth app configured (recordings are imported without attendees). */
  zoomApi?: boolean;
  /** Participants per page of the fake Zoom (default 2, so paging is exercised; Zoom's most is 300). */
  pageSize?: number;
}

export async function startZoomBridge(engine: Engine, cleanups: Cleanup[], options: ZoomBridgeOptions = {}): Promise<ZoomBridge> {
  const momentum = await startFakeMomentum();
  const zoom = await startFakeZoom({ ...ZOOM_APP, ...(options.pageSize === undefined ? {} : { pageSize: options.pageSize }) });
  cleanups.push(momentum.close, zoom.close);
  const zoomApi: Record<string, string> =
    options.zoomApi === false
      ? {}
      : {
          ZOOM_ACCOUNT_ID: ZOOM_APP.accountId,
          ZOOM_CLIENT_ID: ZOOM_APP.clientId,
          ZOOM_CLIENT_SECRET: ZOOM_APP.clientSecret,
          ZOOM_API_URL: zoom.apiUrl,
          ZOOM_OAUTH_URL: zoom.oauthUrl,
        };
  const bridge = await startTestBridge({
    engine,
    env: {
      MOMENTUM_API_BASE_URL: momentum.url,
      MOMENTUM_RECEIVER_URL: momentum.url,
      MOMENTUM_API_KEY: 'mk-test-key',
      MOMENTUM_RATE_LIMIT: 'off',
      ZOOM_WEBHOOK_SECRET_TOKENS: SECRET,
      ...zoomApi,
      INTERNAL_EMAIL_DOMAINS: 'example.com',
      CALENDAR_WEBHOOK_SECRETS: WEBHOOK_SECRET,
      SALESFORCE_ORG_IDS: ORG_ID,
      ADMIN_API_KEYS: ADMIN_KEY,
      RETRY_SCHEDULE: '100ms,200ms',
      ...options.env,
    },
  });
  cleanups.push(bridge.stop);
  return { momentum, zoom, bridge, url: `${bridge.url}/recordings/zoom/events`, databaseUrl: bridge.databaseUrl };
}

/** A mapping file of its own in a temporary directory, for MAPPING_FILE. */
export function mappingFile(rules: unknown): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'mapping-'));
  const file = path.join(dir, 'mapping.json');
  writeFileSync(file, JSON.stringify(rules));
  return file;
}

export const importsAt = (momentum: FakeMomentum): RecordedRequest[] => momentum.requests.filter((request) => request.path === '/user-provided-meeting');

/** The meeting of an import Momentum received. */
export const meetingOf = (request: RecordedRequest | undefined): Record<string, unknown> => (request?.body as { meeting: Record<string, unknown> }).meeting;

/** Every stored inbound event, oldest first: source, dedupe key, state and reason. */
export const storedEvents = (databaseUrl: string): Promise<Row[]> =>
  queryRows(databaseUrl, 'SELECT id, source, dedupe_key, state, state_reason FROM inbound_events ORDER BY id');

/** Every job, oldest first, with its kind, state and result (JSON text or null). */
export const storedJobs = (databaseUrl: string): Promise<Row[]> => queryRows(databaseUrl, 'SELECT id, kind, state, attempts, result FROM jobs ORDER BY id');

/** Rows in the inbound tables and the queue: what "nothing stored" is checked against. */
export async function storedCounts(databaseUrl: string): Promise<{ messages: number; events: number; jobs: number }> {
  const [row] = await queryRows(
    databaseUrl,
    `SELECT (SELECT COUNT(*) FROM inbound_messages) AS messages, (SELECT COUNT(*) FROM inbound_events) AS events, (SELECT COUNT(*) FROM jobs) AS jobs`,
  );
  return { messages: Number(row?.messages), events: Number(row?.events), jobs: Number(row?.jobs) };
}
