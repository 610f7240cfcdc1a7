import { startFakeSalesforceOrg } from './fake-salesforce-org/index.ts';
import type { JsonOrg } from './fake-salesforce-org/org.ts';

/**
 * Contacts, Leads, Accounts and Opportunities written the short way tests like to write them,
 * served by the SOQL-evaluating fake org (fake-salesforce-org/): every query the bridge sends is
 * evaluated as Salesforce would, never pattern-matched. Client credentials flow only.
 */
export interface Tables {
  contacts?: Array<{ Id: string; Email: string; AccountId: string | null }>;
  leads?: Array<{ Id: string; Email: string; IsConverted?: boolean }>;
  accounts?: Array<{ Id: string; Website: string | null; LastModifiedDate?: string; Type?: string | null }>;
  opportunities?: Array<{
    Id: string;
    AccountId: string;
    IsClosed: boolean;
    IsWon?: boolean;
    CloseDate: string;
    CreatedDate: string;
    LastModifiedDate: string;
    OwnerEmail: string | null;
    ContactRoleEmails?: string[];
  }>;
}

export interface FakeSalesforceRecords {
  url: string;
  /** Every SOQL text received, in order. */
  readonly queries: string[];
  failNextQueries(count: number): void;
  close(): Promise<void>;
}

// Ids the tables leave implicit (owners, contact roles, role-only contacts): valid-looking and distinct.
const implicitId = (prefix: string, n: number) => `${prefix}8d0000${String(n).padStart(6, '0')}AAA`;

/** The tables as an org: owners become Users, contact role emails OpportunityContactRoles on Contacts of that email. */
export function orgOf(tables: Tables): JsonOrg {
  const users = new Map<string, string>();
  const contacts: Array<Record<string, unknown>> = (tables.contacts ?? []).map((contact) => ({ ...contact }));
  const contactOf = (email: string) => {
    const found = contacts.find((contact) => String(contact.Email).toLowerCase() === email.toLowerCase());
    if (found !== undefined) return String(found.Id);
    const id = implicitId('003', contacts.length + 1);
    contacts.push({ Id: id, Email: email, AccountId: null });
    return id;
  };
  const roles: Array<Record<string, unknown>> = [];
  const opportunities = (tables.opportunities ?? []).map(({ OwnerEmail, ContactRoleEmails, ...opportunity }) => {
    let ownerId: string | null = null;
    if (OwnerEmail !== null) {
      ownerId = users.get(OwnerEmail) ?? implicitId('005', users.size + 1);
      users.set(OwnerEmail, ownerId);
    }
    for (const email of ContactRoleEmails ?? []) {
      roles.push({ Id: implicitId('00K', roles.length + 1), OpportunityId: opportunity.Id, ContactId: contactOf(email), IsPrimary: false, Role: null });
    }
    return { Name: null, StageName: null, IsWon: false, ...opportunity, OwnerId: ownerId };
  });
  return {
    User: [...users].map(([email, id]) => ({ Id: id, Email: email })),
    Account: (tables.accounts ?? []).map((account) => ({ Type: null, LastModifiedDate: '2026-01-01T00:00:00.000+0000', ...account })),
    Contact: contacts,
    Lead: (tables.leads ?? []).map((lead) => ({ IsConverted: false, ...lead })),
    Opportunity: opportunities,
    OpportunityContactRole: roles,
    OpportunityTeamMember: [],
  };
}

export async function startFakeSalesforceRecords(
  tables: Tables,
  credentials = { clientId: 'bridge-app', clientSecret: 'right-secret' },
): Promise<FakeSalesforceRecords> {
  const fake = await startFakeSalesforceOrg({ org: orgOf(tables), ...credentials });
  return {
    url: fake.url,
    get queries() {
      return fake.queries();
    },
    failNextQueries: (count) => fake.failNextQueries(count, 503),
    close: () => fake.close(),
  };
}
