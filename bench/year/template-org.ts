import { normalizeSalesforceId } from '../../src/mapping/salesforce-ids.ts';
import type { JsonOrg } from '../../test/fakes/fake-salesforce-org/index.ts';

/**
 * The tiny Salesforce org the template run matches against, and the marker values every template
 * is written with. Each marker is a value no real row holds, so the fill finds it in the rows the
 * bridge wrote and puts a generated value in its place (rows.ts). Ids are 15-character forms with
 * the `Xq` mark; the bridge writes them in 18-character form too, so both forms are markers.
 */

/** The org's clock (TODAY, LAST_N_DAYS): a Monday, the day before the template meetings. */
export const ORG_NOW = Date.parse('2026-03-02T15:00:00Z');

export const id18 = (id15: string): string => normalizeSalesforceId(id15)!;

/** A marker id: key prefix, `8d0000`, `Xq`, and a 4-digit number (15 characters). */
export const markId = (prefix: string, n: number): string => `${prefix}8d0000Xq${String(n).padStart(4, '0')}`;

export const MARK = {
  ownerUser: markId('005', 1),
  account: markId('001', 1),
  opportunity: markId('006', 1),
  contact: markId('003', 1),
  role: markId('00K', 1),
  /** A second Account's two open deals with no contact role: its attendee's meeting is a tie. */
  tiedAccount: markId('001', 2),
  tiedOpportunityA: markId('006', 2),
  tiedOpportunityB: markId('006', 3),
  tiedContact: markId('003', 2),
  host: 'xqhost.rep@seller.test',
  hostName: 'Xqhost Rep',
  buyer: 'xqbuyer.person@xqcorp.test',
  buyerName: 'Xqbuyer Person',
  tiedBuyer: 'xqtied.person@xqtied.test',
  nobody: 'xqnobody.person@xqnowhere.test',
  company: 'Xqcorp',
  domain: 'xqcorp.test',
  internalDomain: 'seller.test',
} as const;

const audit = (day: string) => ({ CreatedDate: `${day}T09:00:00.000+0000`, LastModifiedDate: `${day}T09:00:00.000+0000` });

export function templateOrg(): JsonOrg {
  const opportunity = (id: string, accountId: string, name: string) => ({
    Id: id18(id),
    Name: name,
    AccountId: id18(accountId),
    IsClosed: false,
    IsWon: false,
    StageName: 'Negotiation',
    CloseDate: '2026-06-30',
    OwnerId: id18(MARK.ownerUser),
    ...audit('2026-02-10'),
  });
  return {
    User: [{ Id: id18(MARK.ownerUser), Email: MARK.host, Name: MARK.hostName, IsActive: true, ...audit('2024-01-01') }],
    Account: [
      { Id: id18(MARK.account), Name: MARK.company, Website: `https://www.${MARK.domain}`, Type: 'Customer', ...audit('2025-01-01') },
      { Id: id18(MARK.tiedAccount), Name: 'Xqtied', Website: 'https://xqtied.test', Type: 'Prospect', ...audit('2025-01-01') },
    ],
    Contact: [
      { Id: id18(MARK.contact), Email: MARK.buyer, Name: MARK.buyerName, AccountId: id18(MARK.account), ...audit('2025-01-01') },
      { Id: id18(MARK.tiedContact), Email: MARK.tiedBuyer, Name: 'Xqtied Person', AccountId: id18(MARK.tiedAccount), ...audit('2025-01-01') },
    ],
    Lead: [],
    Opportunity: [
      opportunity(MARK.opportunity, MARK.account, `${MARK.company} renewal`),
      opportunity(MARK.tiedOpportunityA, MARK.tiedAccount, 'Xqtied pilot'),
      opportunity(MARK.tiedOpportunityB, MARK.tiedAccount, 'Xqtied expansion'),
    ],
    OpportunityContactRole: [
      {
        Id: id18(MARK.role),
        OpportunityId: id18(MARK.opportunity),
        ContactId: id18(MARK.contact),
        IsPrimary: true,
        Role: 'Decision Maker',
        ...audit('2026-02-10'),
      },
    ],
    OpportunityTeamMember: [],
  };
}
