import type { AccountMatch, AttendeeDirectory, OpportunityCandidate } from './attendee-directory.ts';
import { emailDomain } from './attendees.ts';
import type { FoundIds } from './record-links.ts';

/**
 * Rule 3 of calendar matching (docs/protocols.md §5): external attendees' emails → Contact (its Account)
 * or Lead; else their domains → Account; then the Account's opportunity open at the meeting time.
 */

const DAY_MS = 86_400_000;
// Gong's window (docs/protocols.md §5): also opportunities opened within 14 days after the meeting or
// closed within 14 days before it — a first call often precedes the opportunity by a few days.
const GRACE_MS = 14 * DAY_MS;

export interface AttendeeMatchInput {
  /** Business attendees outside the company, normalised, in attendee order. */
  externalEmails: readonly string[];
  /** The company's own people at the meeting (organizer and calendar owner included). */
  internalEmails: readonly string[];
  start: string;
}

export interface AttendeeMatchResult {
  found: FoundIds;
  tried: string[];
}

const rank = (emails: readonly string[]) => (email: string) => {
  const index = emails.indexOf(email);
  return index === -1 ? Number.MAX_SAFE_INTEGER : index;
};

export function openAt(candidate: OpportunityCandidate, startMs: number): boolean {
  const created = Date.parse(candidate.createdDate);
  if (!Number.isNaN(created) && created > startMs + GRACE_MS) return false;
  if (!candidate.isClosed) return true;
  // CloseDate is a day: the opportunity is closed from the end of that day on.
  const closedAt = candidate.closeDate === null ? Number.NaN : Date.parse(`${candidate.closeDate}T00:00:00Z`) + DAY_MS;
  return !Number.isNaN(closedAt) && closedAt > startMs - GRACE_MS;
}

/** Prefers Contact Roles with an attendee, then an attending owner, then the most recently modified. */
export function pickOpportunity(candidates: readonly OpportunityCandidate[], input: AttendeeMatchInput): OpportunityCandidate | undefined {
  const external = new Set(input.externalEmails);
  const internal = new Set(input.internalEmails);
  const newestFirst = [...candidates].sort((a, b) => Date.parse(b.lastModifiedDate) - Date.parse(a.lastModifiedDate));
  const withRole = newestFirst.filter((candidate) => candidate.contactEmails.some((email) => external.has(email)));
  const ownerAttends = newestFirst.filter((candidate) => candidate.ownerEmail !== null && internal.has(candidate.ownerEmail));
  return withRole[0] ?? ownerAttends[0] ?? newestFirst[0];
}

function pickAccountByDomain(matches: readonly AccountMatch[], domains: readonly string[]): AccountMatch | undefined {
  const order = rank(domains);
  return [...matches].sort((a, b) => order(a.domain) - order(b.domain) || b.contacts - a.contacts)[0];
}

export async function matchByAttendees(input: AttendeeMatchInput, directory: AttendeeDirectory): Promise<AttendeeMatchResult> {
  const emails = input.externalEmails;
  if (emails.length === 0) return { found: {}, tried: ['attendees: no external business attendee (internal, personal and room addresses never match)'] };
  const tried: string[] = [];
  const order = rank(emails);
  let accountId: string | undefined;

  const contacts = (await directory.contactsByEmail(emails)).filter((contact) => contact.accountId !== null);
  if (contacts.length > 0) {
    // The Account most attendees belong to; on a tie, the one of the first listed attendee.
    const votes = new Map<string, { count: number; first: number }>();
    for (const contact of contacts) {
      const vote = votes.get(contact.accountId!) ?? { count: 0, first: order(contact.email) };
      votes.set(contact.accountId!, { count: vote.count + 1, first: Math.min(vote.first, order(contact.email)) });
    }
    accountId = [...votes].sort(([, a], [, b]) => b.count - a.count || a.first - b.first)[0]![0];
  } else {
    const leads = await directory.leadsByEmail(emails);
    const lead = [...leads].sort((a, b) => order(a.email) - order(b.email))[0];
    if (lead) return { found: { lead: lead.id }, tried };
    tried.push(`contact or lead by email (${emails.join(', ')}): none`);

    const domains = [...new Set(emails.map(emailDomain))];
    let accounts = await directory.accountsByContactDomain(domains);
    if (accounts.length === 0) accounts = await directory.accountsByWebsite(domains);
    accountId = pickAccountByDomain(accounts, domains)?.accountId;
    if (accountId === undefined) {
      tried.push(`account by contact email domain or website (${domains.join(', ')}): none`);
      return { found: {}, tried };
    }
  }

  const startMs = Date.parse(input.start);
  const open = (await directory.opportunitiesOf([accountId])).filter((candidate) => candidate.accountId === accountId && openAt(candidate, startMs));
  const opportunity = pickOpportunity(open, input);
  return { found: { account: accountId, ...(opportunity ? { opportunity: opportunity.id } : {}) }, tried };
}
