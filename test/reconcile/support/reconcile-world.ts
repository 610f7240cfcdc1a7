import { sfId } from '../../calendar/support/directory-setup.ts';
import { WEBHOOK_SECRET } from '../../calendar/support/signed-events.ts';
import { type FakeMomentum, startFakeMomentum } from '../../fakes/fake-momentum.ts';
import { type FakeSalesforceRecords, startFakeSalesforceRecords } from '../../fakes/fake-salesforce-records.ts';
import type { Cleanup } from '../../support/cleanups.ts';
import { type Engine, type TestDatabase, testDatabase } from '../../support/real-store.ts';
import { startTestBridge, type TestBridge } from '../../support/test-bridge.ts';

/*
 * A Salesforce org that evaluates the directory's SOQL, a fake Momentum holding meetings, and
 * bridges on one database that reconcile (MOMENTUM_RECONCILE_INTERVAL) or not. The org has two
 * deals on ACME, the buyer a contact role on one (the clear match) and two equal deals on one account (BETA: a tie).
 */

export const ACME = sfId('001', 61);
export const ACME_DEAL = sfId('006', 61);
/** ACME's other open deal: its buyer is no contact role on it. */
export const ACME_OTHER_DEAL = sfId('006', 65);
export const BETA = sfId('001', 62);
export const BETA_DEALS = [sfId('006', 62), sfId('006', 63)] as const;
export const PINNED_DEAL = sfId('006', 64);
export const REP = 'rita.rep@example.com';
export const ACME_BUYER = 'gail@acme.test';
export const BETA_BUYER = 'hank@beta.test';

const DAY = 86_400_000;
/** A whole hour two days ago: inside the re-match window, and its meeting over. */
export const meetingStart = (daysAgo = 2): string => new Date(Math.floor((Date.now() - daysAgo * DAY) / 3_600_000) * 3_600_000).toISOString();
export const plusMinutes = (iso: string, minutes: number): string => new Date(Date.parse(iso) + minutes * 60_000).toISOString();

const openDeal = (Id: string, AccountId: string, ContactRoleEmails: string[] = []) => ({
  Id,
  AccountId,
  IsClosed: false,
  CloseDate: new Date(Date.now() + 60 * DAY).toISOString().slice(0, 10),
  CreatedDate: new Date(Date.now() - 90 * DAY).toISOString().replace('Z', '+0000'),
  LastModifiedDate: new Date(Date.now() - 10 * DAY).toISOString().replace('Z', '+0000'),
  OwnerEmail: 'owner@example.com',
  ContactRoleEmails,
});

export interface ReconcileWorld {
  momentum: FakeMomentum;
  salesforce: FakeSalesforceRecords;
  database: TestDatabase;
  /** A bridge on the world's database; `reconcile` sets MOMENTUM_RECONCILE_INTERVAL. */
  start(options: { reconcile: boolean }): Promise<TestBridge>;
}

export async function reconcileWorld(engine: Engine, cleanups: Cleanup[]): Promise<ReconcileWorld> {
  const salesforce = await startFakeSalesforceRecords({
    accounts: [
      { Id: ACME, Website: 'https://www.acme.test' },
      { Id: BETA, Website: 'https://beta.test' },
    ],
    contacts: [
      { Id: sfId('003', 61), Email: ACME_BUYER, AccountId: ACME },
      { Id: sfId('003', 62), Email: BETA_BUYER, AccountId: BETA },
    ],
    opportunities: [openDeal(ACME_DEAL, ACME, [ACME_BUYER]), openDeal(ACME_OTHER_DEAL, ACME), openDeal(BETA_DEALS[0], BETA), openDeal(BETA_DEALS[1], BETA)],
  });
  const momentum = await startFakeMomentum();
  const database = testDatabase(engine, 'reconcile');
  cleanups.push(salesforce.close, momentum.close, database.drop);
  return {
    momentum,
    salesforce,
    database,
    async start({ reconcile }) {
      const bridge = await startTestBridge({
        database,
        logLevel: 'info',
        env: {
          MOMENTUM_API_KEY: 'mk-test-key',
          MOMENTUM_API_BASE_URL: momentum.url,
          MOMENTUM_RECEIVER_URL: momentum.url,
          MOMENTUM_RATE_LIMIT: '100/15m',
          RETRY_SCHEDULE: '0,20',
          CALENDAR_WEBHOOK_SECRETS: WEBHOOK_SECRET,
          INTERNAL_EMAIL_DOMAINS: 'example.com',
          SALESFORCE_LOGIN_URL: salesforce.url,
          SALESFORCE_CLIENT_ID: 'bridge-app',
          SALESFORCE_CLIENT_SECRET: 'right-secret',
          ...(reconcile ? { MOMENTUM_RECONCILE_INTERVAL: '1h' } : {}),
        },
      });
      cleanups.push(bridge.stop);
      return bridge;
    },
  };
}
