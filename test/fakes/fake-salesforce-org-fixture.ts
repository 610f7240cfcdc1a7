import type { JsonOrg } from './fake-salesforce-org/index.ts';
import { sfId } from './fake-salesforce-org-support.ts';

/**
 * A small org for the fake's tests of the bridge's queries, on the clock NOW (2 March 2026): each
 * record is there to be found or to be left out by one condition. Built fresh for every test.
 */
export const U = { olivia: sfId('005', 1), pete: sfId('005', 2), noEmail: sfId('005', 3) };
export const A = { globex: sfId('001', 1), notGlobex: sfId('001', 2), initech: sfId('001', 3), bare: sfId('001', 4) };
export const C = { ann: sfId('003', 1), bob: sfId('003', 2), carl: sfId('003', 3), dora: sfId('003', 4), eve: sfId('003', 5) };
export const L = { lena: sfId('00Q', 1), annConverted: sfId('00Q', 2), mo: sfId('00Q', 3) };
export const R = { annOnOpen: sfId('00K', 1), carlOnOpen: sfId('00K', 2), bobOnPilot: sfId('00K', 3) };
export const O = { open: sfId('006', 1), closedLastYear: sfId('006', 2), closedLongAgo: sfId('006', 3), initech: sfId('006', 4), notGlobex: sfId('006', 5) };

const audit = (day: string) => ({ CreatedDate: `${day}T09:00:00.000+0000`, LastModifiedDate: `${day}T09:00:00.000+0000` });

export function bridgeOrg(): JsonOrg {
  return {
    User: [
      { Id: U.olivia, Email: 'olivia@seller.test' },
      { Id: U.pete, Email: 'Pete@Seller.test' },
      { Id: U.noEmail, Email: null },
    ],
    Account: [
      { Id: A.globex, Name: 'Globex', Website: 'https://www.globex.test', Type: 'Customer', ...audit('2026-02-01') },
      { Id: A.notGlobex, Name: 'Not Globex', Website: 'notglobex.test', Type: null, ...audit('2026-02-20') },
      { Id: A.initech, Name: 'Initech', Website: 'http://initech.test/about', Type: 'Partner', ...audit('2026-01-01') },
      { Id: A.bare, Name: 'Bare', Website: null, Type: 'Prospect', ...audit('2026-02-28') },
    ],
    Contact: [
      { Id: C.ann, Email: 'Ann@Globex.test', AccountId: A.globex },
      { Id: C.bob, Email: 'bob@globex.test', AccountId: A.globex },
      { Id: C.carl, Email: 'carl@initech.test', AccountId: A.initech },
      { Id: C.dora, Email: 'dora@globex.test', AccountId: null },
      { Id: C.eve, Email: 'eve@other.test', AccountId: A.notGlobex },
    ],
    Lead: [
      { Id: L.lena, Email: 'lena@hooli.test', IsConverted: false },
      { Id: L.annConverted, Email: 'ann@globex.test', IsConverted: true },
      { Id: L.mo, Email: 'MO@hooli.test' },
    ],
    Opportunity: [
      {
        Id: O.open,
        Name: 'Globex renewal',
        AccountId: A.globex,
        IsClosed: false,
        IsWon: false,
        StageName: 'Negotiation',
        CloseDate: '2026-06-30',
        OwnerId: U.olivia,
        ...audit('2026-02-25'),
      },
      {
        Id: O.closedLastYear,
        Name: 'Globex pilot',
        AccountId: A.globex,
        IsClosed: true,
        IsWon: true,
        StageName: 'Closed Won',
        CloseDate: '2025-06-01',
        OwnerId: U.pete,
        ...audit('2025-06-01'),
      },
      {
        Id: O.closedLongAgo,
        Name: 'Globex 2024',
        AccountId: A.globex,
        IsClosed: true,
        IsWon: false,
        StageName: 'Closed Lost',
        CloseDate: '2024-12-31',
        OwnerId: U.pete,
        ...audit('2024-12-31'),
      },
      {
        Id: O.initech,
        Name: 'Initech upsell',
        AccountId: A.initech,
        IsClosed: false,
        IsWon: false,
        StageName: 'Prospecting',
        CloseDate: '2026-04-15',
        OwnerId: U.noEmail,
        ...audit('2026-03-01'),
      },
      {
        Id: O.notGlobex,
        Name: 'Other',
        AccountId: A.notGlobex,
        IsClosed: false,
        IsWon: false,
        StageName: 'Prospecting',
        CloseDate: '2026-05-01',
        OwnerId: U.olivia,
        ...audit('2026-02-27'),
      },
    ],
    OpportunityContactRole: [
      { Id: R.annOnOpen, OpportunityId: O.open, ContactId: C.ann, IsPrimary: true, Role: 'Decision Maker' },
      { Id: R.carlOnOpen, OpportunityId: O.open, ContactId: C.carl, IsPrimary: false, Role: 'Influencer' },
      { Id: R.bobOnPilot, OpportunityId: O.closedLastYear, ContactId: C.bob, IsPrimary: true, Role: null },
    ],
    OpportunityTeamMember: [
      { Id: sfId('00q', 1), OpportunityId: O.open, UserId: U.pete, TeamMemberRole: 'Sales Engineer' },
      { Id: sfId('00q', 2), OpportunityId: O.initech, UserId: U.olivia, TeamMemberRole: 'Account Manager' },
    ],
  };
}
