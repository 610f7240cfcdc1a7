/**
 * What matching reads of the CRM (docs/protocols.md §5), behind one interface: the jsforce
 * directory in production (batched, cached per sync), the SOQL-evaluating fake org in tests and
 * the benchmark. Every method answers for a batch of keys in one round trip; ids come back
 * normalised to 18 characters, emails and domains lower-cased. Matching never speaks HTTP itself.
 */

export interface ContactRecord {
  id: string;
  email: string;
  /** Null for a private Contact: it names no Account. */
  accountId: string | null;
  /** The Account's Type (`Customer`, `Partner`…), for the mapping file's excluded account types. */
  accountType: string | null;
  accountWebsite: string | null;
}

export interface LeadRecord {
  id: string;
  email: string;
}

export interface DomainAccount {
  accountId: string;
  /** The attendee domain this Account answers for. */
  domain: string;
  /** How: the Account's Contacts write from the domain, or its Website's host is the domain (or a subdomain of it). */
  via: 'contact_domain' | 'website';
  /** For `website`: whether the host is the domain itself or a subdomain of it (`jp.x.com` for `x.com`). */
  host: 'exact' | 'subdomain';
  /** For `contact_domain`: how many of its Contacts write from the domain. */
  contacts: number;
  accountType: string | null;
}

export interface ContactRole {
  email: string;
  isPrimary: boolean;
  role: string | null;
}

export interface OpportunityRecord {
  id: string;
  name: string | null;
  accountId: string;
  accountType: string | null;
  isClosed: boolean;
  isWon: boolean;
  stageName: string | null;
  /** YYYY-MM-DD, as Salesforce sends dates. */
  closeDate: string | null;
  createdDate: string;
  lastModifiedDate: string;
  ownerEmail: string | null;
  contactRoles: ContactRole[];
  /** Opportunity team members' emails (empty unless the mapping file turns teams on). */
  teamEmails: string[];
}

export interface CrmDirectory {
  contactsByEmail(emails: readonly string[]): Promise<ContactRecord[]>;
  /** Unconverted Leads only: a converted Lead lives on as a Contact. */
  leadsByEmail(emails: readonly string[]): Promise<LeadRecord[]>;
  /** Accounts for each domain, by their Contacts' addresses and by their Website's host; every domain answered on its own. */
  accountsByDomain(domains: readonly string[]): Promise<DomainAccount[]>;
  /** The Accounts' Opportunities open or closed within the last year; matching applies the meeting's window. */
  opportunitiesOf(accountIds: readonly string[]): Promise<OpportunityRecord[]>;
  /**
   * Forgets cached answers a CRM change made stale (docs/calendars.md, re-matching): a re-match
   * right after an opportunity is created must see it, not the list cached before.
   */
  forget(change: CrmChange): void;
  /**
   * The same lookups with nothing cached (batched all the same): for re-checks, which must see the
   * CRM as it is now, whatever another instance cached before a change it did not hear of.
   */
  uncached(): CrmDirectory;
}

/** What one CRM change can make stale: answers by these emails, domains and Accounts. */
export interface CrmChange {
  emails?: readonly string[];
  domains?: readonly string[];
  accountIds?: readonly string[];
}
