import { WEBHOOK_SECRET } from '../../calendar/support/signed-events.ts';
import { type FakeMomentum, startFakeMomentum } from '../../fakes/fake-momentum.ts';
import { type FakeSalesforceOrg, startFakeSalesforceOrg } from '../../fakes/fake-salesforce-org/index.ts';
import { orgOf } from '../../fakes/fake-salesforce-records.ts';
import { ORG_ID } from '../../salesforce/support/outbound-message-builder.ts';
import type { Cleanup } from '../../support/cleanups.ts';

/*
 * The world the matching tests through the bridge share: a Salesforce org that evaluates the
 * directory's SOQL (its records live, so a test can create the deal the rep creates), a fake
 * Momentum, and the settings that point a bridge at both, Outbound Messages from the sample org
 * accepted and signed calendar events taken.
 */

export const SALESFORCE_APP = { clientId: 'bridge-app', clientSecret: 'right-secret' };

export interface CrmWorld {
  org: FakeSalesforceOrg;
  momentum: FakeMomentum;
  /** Settings for startTestBridge, on top of which a test adds its own. */
  env: Record<string, string>;
}

export async function startCrmWorld(tables: Parameters<typeof orgOf>[0], cleanups: Cleanup[]): Promise<CrmWorld> {
  const org = await startFakeSalesforceOrg({ org: orgOf(tables), ...SALESFORCE_APP });
  const momentum = await startFakeMomentum();
  cleanups.push(org.close, momentum.close);
  const env = {
    MOMENTUM_API_BASE_URL: momentum.url,
    MOMENTUM_API_KEY: 'mk-test-key',
    MOMENTUM_RATE_LIMIT: 'off',
    CALENDAR_WEBHOOK_SECRETS: WEBHOOK_SECRET,
    SALESFORCE_ORG_IDS: ORG_ID,
    INTERNAL_EMAIL_DOMAINS: 'example.com',
    SALESFORCE_LOGIN_URL: org.url,
    SALESFORCE_CLIENT_ID: SALESFORCE_APP.clientId,
    SALESFORCE_CLIENT_SECRET: SALESFORCE_APP.clientSecret,
  };
  return { org, momentum, env };
}

/** An open opportunity as the org stores it, created on 9 March 2026 (a week after the first calls of these tests). */
export const openDeal = (id: string, accountId: string, extra: Record<string, unknown> = {}) => ({
  Id: id,
  Name: 'Acme platform',
  AccountId: accountId,
  IsClosed: false,
  IsWon: false,
  StageName: 'Discovery',
  CloseDate: '2026-06-30',
  CreatedDate: '2026-03-09T10:00:00.000+0000',
  LastModifiedDate: '2026-03-09T10:00:00.000+0000',
  OwnerId: null,
  ...extra,
});
