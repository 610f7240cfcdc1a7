import type { ContactRecord, DomainAccount } from './directory.ts';
import type { AccountEvidence } from './types.ts';

/**
 * How strongly each Account is the attendees' (docs/calendars.md, matching). Strongest first:
 * an attendee is its Contact; its Contacts write from an attendee's domain; its Website's host is
 * an attendee's domain; its Website's host is a subdomain of one (`jp.x.com` for `x.com`). A
 * domain matches a host, never a substring; `www.`, scheme, port, path and case are ignored.
 */

const WEIGHT = { contacts: 8, contactDomains: 4, websiteExact: 2, websiteSubdomain: 1 } as const;

export function rankOf(evidence: AccountEvidence): number {
  return (
    (evidence.contacts.length > 0 ? WEIGHT.contacts : 0) +
    (evidence.contactDomains.length > 0 ? WEIGHT.contactDomains : 0) +
    (evidence.websiteExact.length > 0 ? WEIGHT.websiteExact : 0) +
    (evidence.websiteSubdomain.length > 0 ? WEIGHT.websiteSubdomain : 0)
  );
}

/** The host of an Account website (`https://www.globex.test/about` → globex.test), or undefined. */
export function websiteHost(website: string): string | undefined {
  try {
    const text = website.trim();
    const host = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`).hostname.toLowerCase();
    return host.replace(/^www\./, '').replace(/\.$/, '') || undefined;
  } catch {
    return undefined;
  }
}

/** `exact` when the host is the domain, `subdomain` when it is under it, else undefined. */
export function hostMatch(host: string, domain: string): 'exact' | 'subdomain' | undefined {
  if (host === domain) return 'exact';
  return host.endsWith(`.${domain}`) ? 'subdomain' : undefined;
}

const blank = (accountId: string, accountType: string | null): AccountEvidence => ({
  accountId,
  contacts: [],
  websiteExact: [],
  websiteSubdomain: [],
  contactDomains: [],
  accountType,
});

const push = (list: string[], value: string) => {
  if (!list.includes(value)) list.push(value);
};

/** Evidence from the attendees' Contacts: each Contact's Account, and whether that Account's Website is an attendee's domain. */
export function evidenceFromContacts(contacts: readonly ContactRecord[], domains: readonly string[]): Map<string, AccountEvidence> {
  const accounts = new Map<string, AccountEvidence>();
  for (const contact of contacts) {
    if (contact.accountId === null) continue;
    const evidence = accounts.get(contact.accountId) ?? blank(contact.accountId, contact.accountType);
    push(evidence.contacts, contact.email);
    const host = contact.accountWebsite === null ? undefined : websiteHost(contact.accountWebsite);
    for (const domain of host === undefined ? [] : domains) {
      const match = hostMatch(host!, domain);
      if (match === 'exact') push(evidence.websiteExact, domain);
      if (match === 'subdomain') push(evidence.websiteSubdomain, domain);
    }
    accounts.set(contact.accountId, evidence);
  }
  return accounts;
}

/** Evidence from the attendees' domains alone: Accounts whose Contacts write from them, or whose Website is one. */
export function evidenceFromDomains(matches: readonly DomainAccount[]): Map<string, AccountEvidence> {
  const accounts = new Map<string, AccountEvidence>();
  for (const match of matches) {
    const evidence = accounts.get(match.accountId) ?? blank(match.accountId, match.accountType);
    if (match.via === 'contact_domain') push(evidence.contactDomains, match.domain);
    else push(match.host === 'exact' ? evidence.websiteExact : evidence.websiteSubdomain, match.domain);
    accounts.set(match.accountId, evidence);
  }
  return accounts;
}

/** What the evidence says, for the match record: `gail@globex.com is its Contact; website globex.com`. */
export function describeEvidence(evidence: AccountEvidence): string {
  const parts = [
    ...evidence.contacts.map((email) => `${email} is its Contact`),
    ...evidence.contactDomains.map((domain) => `its Contacts write from ${domain}`),
    ...evidence.websiteExact.map((domain) => `its website is ${domain}`),
    ...evidence.websiteSubdomain.map((domain) => `its website is under ${domain}`),
  ];
  return parts.join('; ');
}
