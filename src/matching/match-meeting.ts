import { describeEvidence, evidenceFromContacts, evidenceFromDomains, rankOf } from './account-evidence.ts';
import { decideAccounts, decideLeads, decideOpportunities } from './decide.ts';
import type { CrmDirectory } from './directory.ts';
import { rankOpportunities } from './opportunity-candidates.ts';
import type { AccountEvidence, MatchAttendee, MatchingRules, MatchRecord, MatchRecords } from './types.ts';

/**
 * Which CRM records a meeting is about (docs/calendars.md, matching), signals in order of trust:
 * an operator's pin; ids set on purpose; Salesforce links or ids in the text; then the attendees —
 * contact roles on an opportunity, its owner attending, the attendees' Contacts' Accounts, their
 * Leads, their domains' Accounts. A pure function of what the directory answers, so the preview,
 * the benchmark and production run the same code; its answer for one meeting never depends on
 * other meetings looked up beside it (each is decided on its own rows).
 */

export interface MeetingToMatch {
  attendees: readonly MatchAttendee[];
  /** The meeting's start (epoch ms): opportunities are weighed as they stood then. */
  startMs: number;
  /** Ids set on purpose (extendedProperties, the signed body's `salesforce`). */
  explicit?: MatchRecords;
  /** Ids found in the description or location. */
  linked?: MatchRecords;
  pin?: { records: MatchRecords; by: string; at: string; reason: string };
}

const has = (records: MatchRecords | undefined): records is MatchRecords =>
  records !== undefined && Boolean(records.opportunityId ?? records.accountId ?? records.leadId);

const base = (
  rulesVersion: string | undefined,
): Pick<MatchRecord, 'version' | 'attendees' | 'accounts' | 'candidates' | 'tried'> & { rulesVersion?: string } => ({
  version: 1,
  attendees: [],
  accounts: [],
  candidates: [],
  tried: [],
  ...(rulesVersion === undefined ? {} : { rulesVersion }),
});

/** The match record of a meeting an operator pinned: the pin wins over every rule, whatever the source. */
export function pinnedMatch(pin: NonNullable<MeetingToMatch['pin']>, rulesVersion?: string): MatchRecord {
  const { by, at, reason } = pin;
  return { ...base(rulesVersion), outcome: 'pinned', rule: 'pinned', records: pin.records, pin: { by, at, reason }, summary: `Pinned by ${by}: ${reason}` };
}

const domainOf = (email: string) => email.slice(email.lastIndexOf('@') + 1);

export async function matchMeeting(
  meeting: MeetingToMatch,
  directory: CrmDirectory | undefined,
  rules: MatchingRules,
  rulesVersion?: string,
): Promise<MatchRecord> {
  const record = base(rulesVersion);
  if (meeting.pin !== undefined) return pinnedMatch(meeting.pin, rulesVersion);
  if (has(meeting.explicit))
    return { ...record, outcome: 'matched', rule: 'explicit_ids', records: meeting.explicit, summary: 'The meeting names its Salesforce ids itself' };
  record.tried.push('explicit ids: none');
  if (has(meeting.linked))
    return {
      ...record,
      outcome: 'matched',
      rule: 'salesforce_link',
      records: meeting.linked,
      summary: 'A Salesforce link or id in the description or location names the record',
    };
  record.tried.push('Salesforce links or ids in the description and location: none');
  if (directory === undefined) {
    record.tried.push('attendees: not looked up (no Salesforce credentials configured)');
    return { ...record, outcome: 'none', rule: 'none', records: {}, summary: 'No record: nothing names one and attendees cannot be looked up' };
  }

  const external = meeting.attendees.filter((attendee) => attendee.kind === 'external').map((attendee) => attendee.email);
  const personal = rules.personalEmailContacts ? meeting.attendees.filter((attendee) => attendee.kind === 'personal').map((attendee) => attendee.email) : [];
  const internal = new Set(meeting.attendees.filter((attendee) => attendee.kind === 'internal').map((attendee) => attendee.email));
  const lookedUp = [...external, ...personal];
  if (lookedUp.length === 0) {
    record.tried.push('attendees: no external attendee (internal, personal and room addresses never match)');
    return { ...record, outcome: 'none', rule: 'none', records: {}, summary: 'No record: no external attendee to match' };
  }
  const domains = [...new Set(external.map(domainOf))];
  const excluded = new Set(rules.excludeAccountTypes.map((type) => type.toLowerCase()));
  const isExcluded = (type: string | null) => type !== null && excluded.has(type.toLowerCase());

  const contacts = await directory.contactsByEmail(lookedUp);
  const wanted = new Set(lookedUp);
  const mine = contacts.filter((contact) => wanted.has(contact.email));
  const leads = mine.some((contact) => contact.accountId !== null) ? [] : (await directory.leadsByEmail(lookedUp)).filter((lead) => wanted.has(lead.email));
  record.attendees = meeting.attendees.map((attendee) => ({
    email: attendee.email,
    kind: attendee.kind,
    contacts: mine.filter((contact) => contact.email === attendee.email).map((contact) => ({ id: contact.id, accountId: contact.accountId })),
    leads: leads.filter((lead) => lead.email === attendee.email).map((lead) => lead.id),
  }));

  let evidence = evidenceFromContacts(mine, domains);
  let via: 'contact_account' | 'domain' = 'contact_account';
  if (evidence.size === 0) {
    record.tried.push(`contacts by email (${lookedUp.join(', ')}): none with an Account`);
    if (leads.length > 0) return decideLeads(record, leads, meeting.attendees, rules);
    record.tried.push(`leads by email (${lookedUp.join(', ')}): none`);
    evidence = evidenceFromDomains(domains.length === 0 ? [] : (await directory.accountsByDomain(domains)).filter((match) => domains.includes(match.domain)));
    via = 'domain';
  }
  const partners = new Set(rules.partnerAccountTypes.map((type) => type.toLowerCase()));
  const isPartner = (type: string | null) => type !== null && partners.has(type.toLowerCase());
  const ranked = new Map<string, AccountEvidence & { rank: number }>();
  for (const [id, entry] of evidence) {
    if (isExcluded(entry.accountType))
      record.accounts.push({ ...entry, rank: 0, excluded: `Account Type ${entry.accountType} is excluded in the mapping file` });
    // Doubled, so that a partner-type Account loses to any other of the same evidence and to no stronger one.
    else ranked.set(id, { ...entry, rank: rankOf(entry) * 2 + (isPartner(entry.accountType) ? 0 : 1) });
  }
  if (via === 'domain') keepBestDomainEvidence(ranked, record);
  record.accounts.push(...ranked.values());
  if (ranked.size === 0) {
    record.tried.push(`accounts by ${via === 'domain' ? `domain (${domains.join(', ') || 'no business domain'})` : 'contact'}: none eligible`);
    return { ...record, outcome: 'none', rule: 'none', records: {}, summary: 'No record: no attendee belongs to an Account in Salesforce' };
  }

  const opportunities = await directory.opportunitiesOf([...ranked.keys()]);
  const ranking = rankOpportunities(opportunities, ranked, { startMs: meeting.startMs, external: wanted, internal }, rules);
  record.candidates.push(...ranking.candidates);
  if (ranking.top.length > 0) return decideOpportunities(record, ranking, ranked, rules);
  record.tried.push(`opportunities of ${[...ranked.keys()].join(', ')}: none in the window`);
  return decideAccounts(record, ranked, via, rules, describeEvidence);
}

/**
 * Matched by domain alone, nobody at the meeting is known: the domain's own Account (its Contacts
 * write from it, or its website is that host) is the company, and a subsidiary whose website is
 * only under the domain (`jp.x.com` for `x.com`) is a candidate only when no Account has the
 * domain itself. Otherwise any deal of a subsidiary would win over a parent that has none.
 */
function keepBestDomainEvidence(ranked: Map<string, AccountEvidence & { rank: number }>, record: { accounts: MatchRecord['accounts'] }): void {
  const strength = (entry: AccountEvidence) => rankOf({ ...entry, websiteSubdomain: [] });
  if (![...ranked.values()].some((entry) => strength(entry) > 0)) return;
  for (const [id, entry] of ranked) {
    if (strength(entry) > 0) continue;
    ranked.delete(id);
    record.accounts.push({ ...entry, excluded: 'its website is only under the attendees’ domain, and another Account has the domain itself' });
  }
}
