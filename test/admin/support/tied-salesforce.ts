import { startFakeSalesforceOrg } from '../../fakes/fake-salesforce-org/index.ts';

/**
 * A Salesforce org, served by the SOQL-evaluating fake, where one Account's Contact attends and the
 * Account has two open opportunities that nothing sets apart (no contact role attends, their owner
 * does not): the tie matching never guesses. Client credentials flow; every query is recorded.
 */

export const TIED_ACCOUNT = '0018d0000101XyZAAU';
export const TIED_CONTACT = '0038d0000101XyZAAU';
export const TIED_OPPORTUNITIES = ['0068d0000202XyZAAU', '0068d0000303XyZAAU'] as const;
export const TIED_CLIENT = { id: 'bridge-app', secret: 'tied-org-secret' };
const OWNER = '0058d0000101XyZAAU';

export interface TiedSalesforce {
  url: string;
  /** Every SOQL text asked, in order. */
  readonly queries: string[];
  close(): Promise<void>;
}

/** The org with `buyer` as the attending Contact's email. */
export async function startTiedSalesforce(buyer: string): Promise<TiedSalesforce> {
  const fake = await startFakeSalesforceOrg({
    clientId: TIED_CLIENT.id,
    clientSecret: TIED_CLIENT.secret,
    org: {
      User: [{ Id: OWNER, Email: 'owner.absent@example.com' }],
      Account: [{ Id: TIED_ACCOUNT, Name: 'Globex', Website: null, Type: 'Customer', LastModifiedDate: '2026-01-01T00:00:00.000+0000' }],
      Contact: [{ Id: TIED_CONTACT, Email: buyer, AccountId: TIED_ACCOUNT }],
      Lead: [],
      Opportunity: TIED_OPPORTUNITIES.map((id, index) => ({
        Id: id,
        Name: index === 0 ? 'Globex renewal' : 'Globex expansion',
        AccountId: TIED_ACCOUNT,
        IsClosed: false,
        IsWon: false,
        StageName: 'Negotiation',
        CloseDate: '2026-06-30',
        CreatedDate: '2026-01-05T10:00:00.000+0000',
        LastModifiedDate: `2026-02-0${index + 1}T10:00:00.000+0000`,
        OwnerId: OWNER,
      })),
      OpportunityContactRole: [],
      OpportunityTeamMember: [],
    },
  });
  return {
    url: fake.url,
    get queries() {
      return fake.queries();
    },
    close: () => fake.close(),
  };
}

export const tiedSalesforceSettings = (org: TiedSalesforce): Record<string, string> => ({
  SALESFORCE_LOGIN_URL: org.url,
  SALESFORCE_CLIENT_ID: TIED_CLIENT.id,
  SALESFORCE_CLIENT_SECRET: TIED_CLIENT.secret,
});
