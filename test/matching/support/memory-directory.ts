import { hostMatch, websiteHost } from '../../../src/matching/account-evidence.ts';
import type { CrmDirectory, DomainAccount, OpportunityRecord } from '../../../src/matching/directory.ts';

/*
 * A CrmDirectory over plain arrays, for the unit tests of matching: it answers what the jsforce
 * directory answers for the same org (the SOQL-evaluating fake proves that one), and counts calls.
 */

export interface MemoryOrg {
  accounts: Array<{ id: string; website?: string | null; type?: string | null }>;
  contacts: Array<{ id: string; email: string; accountId: string | null }>;
  leads?: Array<{ id: string; email: string }>;
  opportunities: Array<Partial<OpportunityRecord> & { id: string; accountId: string }>;
}

export const opportunity = (id: string, accountId: string, extra: Partial<OpportunityRecord> = {}): MemoryOrg['opportunities'][number] => ({
  id,
  accountId,
  ...extra,
});

export function memoryDirectory(org: MemoryOrg): CrmDirectory & { calls: string[] } {
  const calls: string[] = [];
  const account = (id: string | null) => org.accounts.find((entry) => entry.id === id);
  return {
    calls,
    async contactsByEmail(emails) {
      calls.push('contacts');
      return org.contacts
        .filter((contact) => emails.includes(contact.email))
        .map((contact) => ({
          ...contact,
          accountType: account(contact.accountId)?.type ?? null,
          accountWebsite: account(contact.accountId)?.website ?? null,
        }));
    },
    async leadsByEmail(emails) {
      calls.push('leads');
      return (org.leads ?? []).filter((lead) => emails.includes(lead.email));
    },
    async accountsByDomain(domains) {
      calls.push('domains');
      const found: DomainAccount[] = [];
      for (const domain of domains) {
        for (const entry of org.accounts) {
          const contacts = org.contacts.filter((contact) => contact.accountId === entry.id && contact.email.endsWith(`@${domain}`)).length;
          if (contacts > 0) found.push({ accountId: entry.id, domain, via: 'contact_domain', host: 'exact', contacts, accountType: entry.type ?? null });
          const host = entry.website ? websiteHost(entry.website) : undefined;
          const match = host === undefined ? undefined : hostMatch(host, domain);
          if (match !== undefined) found.push({ accountId: entry.id, domain, via: 'website', host: match, contacts: 0, accountType: entry.type ?? null });
        }
      }
      return found;
    },
    forget() {
      calls.push('forget');
    },
    uncached() {
      return this;
    },
    async opportunitiesOf(accountIds) {
      calls.push('opportunities');
      return org.opportunities
        .filter((entry) => accountIds.includes(entry.accountId))
        .map((entry) => ({
          name: null,
          accountType: account(entry.accountId)?.type ?? null,
          isClosed: false,
          isWon: false,
          stageName: null,
          closeDate: null,
          createdDate: '2026-01-01T00:00:00.000Z',
          lastModifiedDate: '2026-02-01T00:00:00.000Z',
          ownerEmail: null,
          contactRoles: [],
          teamEmails: [],
          ...entry,
        }));
    },
  };
}
