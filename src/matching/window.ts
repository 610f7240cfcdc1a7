import type { OpportunityRecord } from './directory.ts';
import type { MatchingRules } from './types.ts';

/**
 * Whether an opportunity can be the meeting's (docs/calendars.md, matching: the time window), and
 * how it stood at the meeting: open at it, created up to `createdAfterDays` after it (a first call
 * usually comes before its opportunity), or closed up to `closedBeforeDays` before it (a kickoff
 * after the deal was won). Outside that window it is never a candidate.
 */

const DAY_MS = 86_400_000;

export type Timing = { eligible: true; timing: 0 | 1 | 2; why: string } | { eligible: false; why: string };

const days = (ms: number) => Math.round(ms / DAY_MS);

export function timingOf(opportunity: OpportunityRecord, startMs: number, rules: Pick<MatchingRules, 'createdAfterDays' | 'closedBeforeDays'>): Timing {
  const created = Date.parse(opportunity.createdDate);
  if (!Number.isNaN(created) && created > startMs + rules.createdAfterDays * DAY_MS) {
    return { eligible: false, why: `created ${days(created - startMs)} days after the meeting (more than ${rules.createdAfterDays})` };
  }
  // CloseDate is a day: the opportunity is closed from the end of that day on.
  const closedAt = opportunity.isClosed && opportunity.closeDate !== null ? Date.parse(`${opportunity.closeDate}T00:00:00Z`) + DAY_MS : Number.NaN;
  const outcome = opportunity.isWon ? 'won' : 'lost';
  if (opportunity.isClosed && (Number.isNaN(closedAt) || closedAt < startMs - rules.closedBeforeDays * DAY_MS)) {
    const when = Number.isNaN(closedAt) ? 'with no close date' : `${days(startMs - closedAt)} days before the meeting (more than ${rules.closedBeforeDays})`;
    return { eligible: false, why: `closed ${outcome} ${when}` };
  }
  if (!Number.isNaN(created) && created > startMs) return { eligible: true, timing: 1, why: `created ${days(created - startMs)} days after the meeting` };
  if (opportunity.isClosed && closedAt <= startMs)
    return { eligible: true, timing: 0, why: `closed ${outcome} ${days(startMs - closedAt)} days before the meeting` };
  return { eligible: true, timing: 2, why: 'open at the meeting' };
}
