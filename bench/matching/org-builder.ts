import { normalizeSalesforceId } from '../../src/mapping/salesforce-ids.ts';
import type { JsonOrg } from '../../test/fakes/fake-salesforce-org/index.ts';

/**
 * Writes the generated org as the SOQL-evaluating fake Salesforce serves it (a JsonOrg): Users,
 * Accounts, Contacts, Leads, Opportunities with their contact roles. Ids are valid 18-character
 * Salesforce ids with the real key prefixes; dates are written as Salesforce answers them.
 */

export const DAY_MS = 86_400_000;
/** The org's clock (TODAY, LAST_N_DAYS): the meetings replayed are those of the quarter before it. */
export const ORG_NOW = Date.parse('2026-03-31T12:00:00Z');

const datetime = (ms: number) => new Date(ms).toISOString().replace('Z', '+0000');
const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export type OpportunityState = 'open' | 'won' | 'lost';

export interface OpportunitySpec {
  accountId: string;
  name: string;
  ownerId: string;
  state: OpportunityState;
  createdMs: number;
  /** CloseDate: the expected close of an open one, the day a closed one closed. */
  closeMs: number;
  modifiedMs: number;
}

export interface OrgBuilder {
  readonly org: JsonOrg;
  /** Record names by id, for the report. */
  readonly names: ReadonlyMap<string, string>;
  user(email: string, name: string): string;
  account(spec: { name: string; website: string | null; type?: string | null; modifiedMs?: number }): string;
  contact(email: string, accountId: string | null, name?: string): string;
  lead(email: string, options?: { converted?: boolean; company?: string }): string;
  opportunity(spec: OpportunitySpec): string;
  role(opportunityId: string, contactId: string, role?: string): void;
}

export function createOrgBuilder(): OrgBuilder {
  const org: JsonOrg = { User: [], Account: [], Contact: [], Lead: [], Opportunity: [], OpportunityContactRole: [], OpportunityTeamMember: [] };
  const names = new Map<string, string>();
  const counters = new Map<string, number>();
  const nextId = (prefix: string) => {
    const n = (counters.get(prefix) ?? 0) + 1;
    counters.set(prefix, n);
    return normalizeSalesforceId(`${prefix}8d0000${String(n).padStart(6, '0')}`)!;
  };
  const push = (sObject: string, record: Record<string, unknown>) => (org[sObject] ??= []).push(record);
  const audit = (createdMs: number, modifiedMs: number) => ({ CreatedDate: datetime(createdMs), LastModifiedDate: datetime(modifiedMs) });
  const longAgo = ORG_NOW - 700 * DAY_MS;

  return {
    org,
    names,
    user(email, name) {
      const id = nextId('005');
      push('User', { Id: id, Email: email, Name: name, IsActive: true, ...audit(longAgo, longAgo) });
      names.set(id, name);
      return id;
    },
    account({ name, website, type = 'Customer', modifiedMs = ORG_NOW - 40 * DAY_MS }) {
      const id = nextId('001');
      push('Account', { Id: id, Name: name, Website: website, Type: type, ...audit(longAgo, modifiedMs) });
      names.set(id, name);
      return id;
    },
    contact(email, accountId, name = email.split('@')[0]!) {
      const id = nextId('003');
      push('Contact', { Id: id, Email: email, Name: name, AccountId: accountId, ...audit(longAgo, longAgo) });
      names.set(id, name);
      return id;
    },
    lead(email, { converted = false, company = 'Unknown' } = {}) {
      const id = nextId('00Q');
      push('Lead', { Id: id, Email: email, Company: company, Status: converted ? 'Converted' : 'Open', IsConverted: converted, ...audit(longAgo, longAgo) });
      names.set(id, `Lead ${email}`);
      return id;
    },
    opportunity(spec) {
      const id = nextId('006');
      const closed = spec.state !== 'open';
      push('Opportunity', {
        Id: id,
        Name: spec.name,
        AccountId: spec.accountId,
        OwnerId: spec.ownerId,
        IsClosed: closed,
        IsWon: spec.state === 'won',
        StageName: spec.state === 'won' ? 'Closed Won' : spec.state === 'lost' ? 'Closed Lost' : 'Negotiation',
        CloseDate: date(spec.closeMs),
        ...audit(spec.createdMs, spec.modifiedMs),
      });
      names.set(id, spec.name);
      return id;
    },
    role(opportunityId, contactId, role = 'Decision Maker') {
      push('OpportunityContactRole', {
        Id: nextId('00K'),
        OpportunityId: opportunityId,
        ContactId: contactId,
        IsPrimary: role === 'Decision Maker',
        Role: role,
      });
    },
  };
}
