import { readFileSync } from 'node:fs';

import request from 'supertest';

import { type FakeMomentum, startFakeMomentum } from '../../fakes/fake-momentum.ts';
import type { Cleanup } from '../../support/cleanups.ts';
import { type Engine, testDatabase } from '../../support/real-store.ts';
import { queryRows } from '../../support/stored-state.ts';
import { startTestBridge, type TestBridge } from '../../support/test-bridge.ts';
import { KEY } from './admin-app.ts';

/** What the mapping preview tests send: the Salesforce fixture, a signed meeting and a signed recording. */

export const PREVIEW_PATH = '/admin/mapping/preview';
export const ORG_ID = '00D8d0000001XyZEAU';
export const salesforceFixture = (name: string) => readFileSync(new URL(`../../fixtures/salesforce/${name}`, import.meta.url), 'utf8');
export const EVENT_XML = salesforceFixture('event-opportunity.xml');
export const NOTIFICATION_ID = '04l8d0000101XyZAAU';

/** The remap docs/salesforce.md documents for event-opportunity.xml under the default mapping (no owner lookup configured). */
export const FIXTURE_REMAP = {
  salesforceRecords: { opportunityId: '0068d0000101XyZAAU', accountId: '0018d0000101XyZAAU' },
  meetingDetails: { title: 'Pricing review with Globex', startTime: '2026-03-02T16:00:00.000Z' },
};
export const NO_FLAGS = { triggerSummary: false, triggerAiSignals: false };

export const MEETING = {
  version: 1,
  id: 'AAMkAGI2TG93AAA=',
  sourceType: 'MS_TEAMS',
  title: 'Globex pricing review',
  start: '2026-03-02T16:00:00Z',
  end: '2026-03-02T16:30:00Z',
  organizer: { email: 'ann.seller@acme.test', name: 'Ann Seller' },
  attendees: [{ email: 'hank.buyer@globex.test', name: 'Hank Buyer' }],
  description: 'Notes: https://acme.lightning.force.com/lightning/r/Opportunity/0068d0000101XyZAAU/view',
};

export const RECORDING = {
  kind: 'recording',
  version: 1,
  id: 'rec-2026-03-02-globex',
  recordingUrl: 'https://recordings.acme.test/rec-2026-03-02-globex',
  title: 'Globex pricing review',
  start: '2026-03-02T16:00:00Z',
  end: '2026-03-02T16:30:00Z',
  host: { email: 'ann.seller@acme.test', name: 'Ann Seller' },
  attendees: [{ email: 'hank.buyer@globex.test' }],
  salesforce: { opportunityId: '0068d0000101XyZAAU' },
};

export interface PreviewBridge {
  bridge: TestBridge;
  momentum: FakeMomentum;
  preview(body: unknown): request.Test;
  /** Inbound events and jobs in the bridge's database, read over a connection of the test's own. */
  counts(): Promise<{ events: number; jobs: number }>;
  /** The admin changes logged (a preview is not one). */
  adminChanges(): unknown[];
}

/** The whole bridge on a database of `engine`, Momentum at a fake, the fixtures' org allowed; closed by `cleanups`. */
export async function startPreviewBridge(engine: Engine, cleanups: Cleanup[]): Promise<PreviewBridge> {
  const momentum = await startFakeMomentum();
  const database = testDatabase(engine, 'preview');
  cleanups.push(momentum.close, database.drop);
  const bridge = await startTestBridge({
    database,
    env: {
      ADMIN_API_KEYS: KEY,
      MOMENTUM_API_KEY: 'momentum-test-key-0123456789',
      MOMENTUM_API_BASE_URL: momentum.url,
      MOMENTUM_RECEIVER_URL: momentum.url,
      SALESFORCE_ORG_IDS: ORG_ID,
    },
    logLevel: 'info',
  });
  cleanups.push(bridge.stop);
  const count = async (table: string) => Number((await queryRows(bridge.databaseUrl, `SELECT COUNT(*) AS n FROM ${table}`))[0]?.n);
  return {
    bridge,
    momentum,
    preview: (body) =>
      request(bridge.url)
        .post(PREVIEW_PATH)
        .set('Authorization', `Bearer ${KEY}`)
        .send(body as object),
    counts: async () => ({ events: await count('inbound_events'), jobs: await count('jobs') }),
    adminChanges: () => bridge.logs.lines().filter((line) => line.message === 'admin change'),
  };
}
