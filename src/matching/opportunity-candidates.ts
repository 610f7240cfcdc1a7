import type { OpportunityRecord } from './directory.ts';
import type { AccountEvidence, Candidate, MatchingRules, MatchRule, OpportunityScore } from './types.ts';
import { timingOf } from './window.ts';

/**
 * Every opportunity of the attendees' Accounts as a candidate (docs/calendars.md, matching):
 * outside the time window it is ineligible; inside it, scored by the signals in order of trust —
 * attendees who are its contact roles (more is stronger), its owner or a team member attending,
 * how it stood at the meeting, how strongly its Account is the attendees'. The best score wins;
 * two or more equal on every signal are a tie, never guessed.
 */

export interface ScoredOpportunity {
  opportunity: OpportunityRecord;
  score: OpportunityScore;
  timingWhy: string;
}

export interface OpportunityRanking {
  /** Eligible ones, best first. */
  eligible: ScoredOpportunity[];
  /** The best score's holders: one is a decision, more a tie. */
  top: ScoredOpportunity[];
  /** The signal that set the winner above the runner-up (only_candidate when it stood alone). */
  rule: MatchRule;
  candidates: Candidate[];
}

const FIELDS = ['roles', 'owner', 'timing', 'account'] as const;
const RULE_OF: Record<(typeof FIELDS)[number], MatchRule> = { roles: 'contact_role', owner: 'owner_attends', timing: 'timing', account: 'account_evidence' };

const value = (score: OpportunityScore, field: (typeof FIELDS)[number]) => Number(score[field]);

/** Negative when `a` ranks above `b`. */
export function compareScores(a: OpportunityScore, b: OpportunityScore): number {
  for (const field of FIELDS) {
    const difference = value(b, field) - value(a, field);
    if (difference !== 0) return difference;
  }
  return 0;
}

function describeScore(score: OpportunityScore, timingWhy: string): string {
  const parts = [
    score.roles > 0 ? `${score.roles} attendee${score.roles === 1 ? ' is a contact role' : 's are contact roles'}` : 'no attendee is a contact role',
    score.owner ? 'its owner attends' : 'its owner does not attend',
    timingWhy,
  ];
  return parts.join('; ');
}

export function rankOpportunities(
  opportunities: readonly OpportunityRecord[],
  accounts: ReadonlyMap<string, AccountEvidence & { rank: number }>,
  meeting: { startMs: number; external: ReadonlySet<string>; internal: ReadonlySet<string> },
  rules: MatchingRules,
): OpportunityRanking {
  const ineligible: Candidate[] = [];
  const eligible: ScoredOpportunity[] = [];
  for (const opportunity of opportunities) {
    const account = accounts.get(opportunity.accountId);
    if (account === undefined) continue; // another Account's, answered by a shared batch
    const base = { kind: 'opportunity' as const, id: opportunity.id, name: opportunity.name, accountId: opportunity.accountId };
    const timing = timingOf(opportunity, meeting.startMs, rules);
    if (!timing.eligible) {
      ineligible.push({ ...base, status: 'ineligible', why: timing.why });
      continue;
    }
    const roles = new Set(opportunity.contactRoles.map((role) => role.email).filter((email) => meeting.external.has(email))).size;
    const team = rules.opportunityTeams ? opportunity.teamEmails : [];
    const owner = [opportunity.ownerEmail, ...team].some((email) => email !== null && meeting.internal.has(email));
    eligible.push({ opportunity, score: { roles, owner, timing: timing.timing, account: account.rank }, timingWhy: timing.why });
  }
  eligible.sort((a, b) => compareScores(a.score, b.score) || a.opportunity.id.localeCompare(b.opportunity.id));
  const best = eligible[0];
  const top = best === undefined ? [] : eligible.filter((entry) => compareScores(entry.score, best.score) === 0);
  const runnerUp = eligible[top.length];
  const rule: MatchRule =
    top.length !== 1
      ? 'ambiguous'
      : runnerUp === undefined
        ? 'only_candidate'
        : RULE_OF[FIELDS.find((field) => value(best!.score, field) !== value(runnerUp.score, field))!];
  const candidates: Candidate[] = [];
  for (const entry of eligible) {
    const status = top.length === 1 && entry === best ? 'chosen' : top.includes(entry) ? 'tied' : 'lost';
    const why =
      describeScore(entry.score, entry.timingWhy) +
      (status === 'tied' ? `; equal on every signal with ${top.length - 1} other${top.length > 2 ? 's' : ''}` : '');
    candidates.push({
      kind: 'opportunity',
      id: entry.opportunity.id,
      name: entry.opportunity.name,
      accountId: entry.opportunity.accountId,
      score: entry.score,
      status,
      why,
    });
  }
  return { eligible, top, rule, candidates: [...candidates, ...ineligible] };
}
