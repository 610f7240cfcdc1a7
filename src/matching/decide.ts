import type { LeadRecord } from './directory.ts';
import type { OpportunityRanking } from './opportunity-candidates.ts';
import type { AccountEvidence, Candidate, MatchAttendee, MatchingRules, MatchRecord, MatchRule } from './types.ts';

/**
 * The decision once the candidates are ranked: one best candidate is the match; a tie is never
 * guessed but handed to the mapping file's policy (`matching.ambiguous`): `account-only` sends the
 * Account the tied opportunities share (or the one best Account), `hold` sends nothing until an
 * operator pins, `newest` takes the most recently modified (the behaviour of most sales tools,
 * opt-in). The record says which, and a tie always stays visible as `ambiguous`.
 */

type Partial = Pick<MatchRecord, 'version' | 'attendees' | 'accounts' | 'candidates' | 'tried'> & { rulesVersion?: string };
type Ranked = ReadonlyMap<string, AccountEvidence & { rank: number }>;

const SENTENCE: Record<string, string> = {
  contact_role: 'an attendee is a contact role on it',
  owner_attends: 'its owner attends',
  timing: 'it was open at the meeting',
  account_evidence: 'its Account is most clearly the attendees’',
  only_candidate: 'it is the only opportunity of the attendees’ Account in the window',
};

export function decideOpportunities(record: Partial, ranking: OpportunityRanking, accounts: Ranked, rules: MatchingRules): MatchRecord {
  const [first] = ranking.top;
  if (ranking.top.length === 1 && first !== undefined) {
    const name = first.opportunity.name ? ` (${first.opportunity.name})` : '';
    const summary = `Opportunity ${first.opportunity.id}${name}: ${SENTENCE[ranking.rule] ?? ranking.rule}`;
    return {
      ...record,
      outcome: 'matched',
      rule: ranking.rule,
      records: { opportunityId: first.opportunity.id, accountId: first.opportunity.accountId },
      summary,
    };
  }
  const tied = ranking.top.map((entry) => entry.opportunity);
  const ids = tied.map((opportunity) => opportunity.id).join(', ');
  const ambiguous = { ...record, outcome: 'ambiguous' as const, rule: 'ambiguous' as const };
  if (rules.ambiguous === 'newest') {
    const newest = [...tied].sort((a, b) => Date.parse(b.lastModifiedDate) - Date.parse(a.lastModifiedDate) || a.id.localeCompare(b.id))[0]!;
    return {
      ...ambiguous,
      records: { opportunityId: newest.id, accountId: newest.accountId },
      policy: { name: 'newest', applied: `took ${newest.id}, the most recently modified of the tie` },
      summary: `Ambiguous: ${tied.length} opportunities tie (${ids}); the policy "newest" took ${newest.id}`,
    };
  }
  if (rules.ambiguous === 'hold') {
    return {
      ...ambiguous,
      records: {},
      policy: { name: 'hold', applied: 'nothing sent until an operator pins a record' },
      summary: `Ambiguous: ${tied.length} opportunities tie (${ids}); held for an operator`,
    };
  }
  const account = bestAccount(new Set(tied.map((opportunity) => opportunity.accountId)), accounts);
  return {
    ...ambiguous,
    records: account === undefined ? {} : { accountId: account },
    policy: {
      name: 'account-only',
      applied: account === undefined ? 'the tied opportunities’ Accounts tie too: nothing sent' : `sent Account ${account} without an opportunity`,
    },
    summary: `Ambiguous: ${tied.length} opportunities tie (${ids}); ${account === undefined ? 'nothing sent' : `Account ${account} sent alone`}`,
  };
}

/** The one best-ranked Account among `ids`, or undefined when the best rank is shared. */
function bestAccount(ids: ReadonlySet<string>, accounts: Ranked): string | undefined {
  const ranked = [...ids].map((id) => ({ id, rank: accounts.get(id)?.rank ?? 0 })).sort((a, b) => b.rank - a.rank);
  if (ranked.length === 0) return undefined;
  return ranked.length === 1 || ranked[0]!.rank > ranked[1]!.rank ? ranked[0]!.id : undefined;
}

export function decideAccounts(
  record: Partial,
  accounts: Ranked,
  via: 'contact_account' | 'domain',
  rules: MatchingRules,
  describe: (evidence: AccountEvidence) => string,
): MatchRecord {
  const ranked = [...accounts.values()].sort((a, b) => b.rank - a.rank || a.accountId.localeCompare(b.accountId));
  const top = ranked.filter((entry) => entry.rank === ranked[0]!.rank);
  const candidates: Candidate[] = ranked.map((entry) => ({
    kind: 'account',
    id: entry.accountId,
    status: top.length === 1 && entry === top[0] ? 'chosen' : top.includes(entry) ? 'tied' : 'lost',
    why: describe(entry),
  }));
  record.candidates.push(...candidates);
  const rule: MatchRule = via;
  if (top.length === 1) {
    return {
      ...record,
      outcome: 'matched',
      rule,
      records: { accountId: top[0]!.accountId },
      summary: `Account ${top[0]!.accountId}: ${describe(top[0]!)}; no opportunity in the window`,
    };
  }
  const ids = top.map((entry) => entry.accountId).join(', ');
  const ambiguous = { ...record, outcome: 'ambiguous' as const, rule: 'ambiguous' as const };
  if (rules.ambiguous === 'newest') {
    // Accounts carry no activity date here: the first of the tie in attendee order, as the previous rule did.
    const first = top[0]!;
    return {
      ...ambiguous,
      records: { accountId: first.accountId },
      policy: { name: 'newest', applied: `took ${first.accountId}, the first of the tie` },
      summary: `Ambiguous: ${top.length} Accounts tie (${ids}); the policy "newest" took ${first.accountId}`,
    };
  }
  return {
    ...ambiguous,
    records: {},
    policy: { name: rules.ambiguous, applied: 'the Accounts tie: nothing sent' },
    summary: `Ambiguous: ${top.length} Accounts tie (${ids}); nothing sent`,
  };
}

export function decideLeads(record: Partial, leads: readonly LeadRecord[], attendees: readonly MatchAttendee[], rules: MatchingRules): MatchRecord {
  const order = (email: string) => attendees.findIndex((attendee) => attendee.email === email);
  const distinct = [...new Map([...leads].sort((a, b) => order(a.email) - order(b.email)).map((lead) => [lead.id, lead])).values()];
  record.candidates.push(
    ...distinct.map((lead): Candidate => ({ kind: 'lead', id: lead.id, status: distinct.length === 1 ? 'chosen' : 'tied', why: `${lead.email} is this Lead` })),
  );
  if (distinct.length === 1)
    return {
      ...record,
      outcome: 'matched',
      rule: 'lead',
      records: { leadId: distinct[0]!.id },
      summary: `Lead ${distinct[0]!.id}: ${distinct[0]!.email} is this Lead`,
    };
  const ids = distinct.map((lead) => lead.id).join(', ');
  const ambiguous = { ...record, outcome: 'ambiguous' as const, rule: 'ambiguous' as const };
  if (rules.ambiguous === 'newest') {
    return {
      ...ambiguous,
      records: { leadId: distinct[0]!.id },
      policy: { name: 'newest', applied: `took ${distinct[0]!.id}, the first listed attendee's` },
      summary: `Ambiguous: ${distinct.length} Leads (${ids}); the policy "newest" took ${distinct[0]!.id}`,
    };
  }
  return {
    ...ambiguous,
    records: {},
    policy: { name: rules.ambiguous, applied: 'several Leads: nothing sent' },
    summary: `Ambiguous: ${distinct.length} Leads attend (${ids}); nothing sent`,
  };
}
