/**
 * CRM lookups behind attendee-based calendar matching (docs/protocols.md §5). Separate from the
 * owner-email directory: these are batch lookups by attendee email and domain. Every method is
 * one SOQL round trip for the whole batch; ids come back normalised to 18 characters and emails
 * and domains lower-cased.
 */

export interface ContactMatch {
  id: string;
  email: string;
  /** Null for a private Contact: it names no Account and so matches nothing. */
  accountId: string | null;
}

export interface LeadMatch {
  id: string;
  email: string;
}

export interface AccountMatch {
  accountId: string;
  domain: string;
  /** How many of the Account's Contacts use the domain (0 for a website match): the stronger claim wins. */
  contacts: number;
}

export interface OpportunityCandidate {
  id: string;
  accountId: string;
  isClosed: boolean;
  /** YYYY-MM-DD, as Salesforce sends dates. */
  closeDate: string | null;
  createdDate: string;
  lastModifiedDate: string;
  ownerEmail: string | null;
  /** Emails of the Contacts in its Contact Roles. */
  contactEmails: string[];
}

export interface AttendeeDirectory {
  contactsByEmail(emails: readonly string[]): Promise<ContactMatch[]>;
  /** Unconverted Leads only: a converted Lead lives on as a Contact. */
  leadsByEmail(emails: readonly string[]): Promise<LeadMatch[]>;
  /** Accounts whose Contacts have an email at one of the domains. */
  accountsByContactDomain(domains: readonly string[]): Promise<AccountMatch[]>;
  /** Accounts whose Website's host is one of the domains (or a subdomain of it). */
  accountsByWebsite(domains: readonly string[]): Promise<AccountMatch[]>;
  /** The Accounts' Opportunities that are open or closed within the last year; the caller picks by meeting time. */
  opportunitiesOf(accountIds: readonly string[]): Promise<OpportunityCandidate[]>;
}
