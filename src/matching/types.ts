/**
 * A match, as matching decides it and as the bridge stores it with every mapping run (the match
 * record): what decided, every signal seen, every candidate with its score and why it won or lost,
 * and the policy applied to a tie. The admin API and the console read it back as it was stored.
 */

export type MatchOutcome = 'matched' | 'ambiguous' | 'none' | 'pinned';

/** The signal that decided, in the order of trust (docs/calendars.md, matching). */
export type MatchRule =
  | 'pinned'
  | 'explicit_ids'
  | 'salesforce_link'
  | 'contact_role'
  | 'owner_attends'
  | 'timing'
  | 'account_evidence'
  | 'only_candidate'
  | 'contact_account'
  | 'lead'
  | 'domain'
  | 'ambiguous'
  | 'none';

export type AmbiguousPolicy = 'account-only' | 'hold' | 'newest';

export interface MatchRecords {
  opportunityId?: string;
  accountId?: string;
  leadId?: string;
}

export type AttendeeKind = 'external' | 'personal' | 'internal';

export interface MatchAttendee {
  email: string;
  kind: AttendeeKind;
}

/** An opportunity's score: compared field by field, in this order; equal on every field is a tie. */
export interface OpportunityScore {
  /** External attendees who are contact roles on it. */
  roles: number;
  /** Its owner (or a team member) attends. */
  owner: boolean;
  /** 2 open at the meeting, 1 created after it, 0 closed before it (each within the window). */
  timing: 0 | 1 | 2;
  /** How strongly its Account is the attendees' (see AccountEvidence.rank). */
  account: number;
}

export type CandidateStatus = 'chosen' | 'tied' | 'lost' | 'ineligible' | 'excluded';

export interface Candidate {
  kind: 'opportunity' | 'account' | 'lead';
  id: string;
  name?: string | null;
  accountId?: string;
  score?: OpportunityScore;
  status: CandidateStatus;
  /** Why, in words: `2 attendees are contact roles`, `closed 40 days before the meeting`, `tie with 006…`. */
  why: string;
}

export interface AccountEvidence {
  accountId: string;
  /** Attendees who are its Contacts. */
  contacts: string[];
  /** Attendee domains its Website's host is exactly, or is a subdomain of. */
  websiteExact: string[];
  websiteSubdomain: string[];
  /** Attendee domains its Contacts write from. */
  contactDomains: string[];
  accountType: string | null;
}

export interface MatchRecord {
  version: 1;
  outcome: MatchOutcome;
  rule: MatchRule;
  /** The deciding signal in one sentence. */
  summary: string;
  /** What is sent (after the policy, for a tie). */
  records: MatchRecords;
  /** For a tie: the policy applied and what it did. */
  policy?: { name: AmbiguousPolicy; applied: string };
  attendees: Array<{ email: string; kind: AttendeeKind; contacts: Array<{ id: string; accountId: string | null }>; leads: string[] }>;
  accounts: Array<AccountEvidence & { rank: number; excluded?: string }>;
  candidates: Candidate[];
  /** The rules tried before the one that decided, and what each found. */
  tried: string[];
  /** The mapping file's version (a hash), so a record says which rules made it. */
  rulesVersion?: string;
  /** For a pin: who pinned, when, why. */
  pin?: { by: string; at: string; reason: string };
}

export interface MatchingRules {
  ambiguous: AmbiguousPolicy;
  createdAfterDays: number;
  closedBeforeDays: number;
  /** Account Types never matched (`Partner`, `Reseller`): a partner at the meeting is not the customer. */
  excludeAccountTypes: readonly string[];
  /**
   * Account Types that lose a tie to any other Account: when a partner's own deal and its
   * customer's deal are equal on every other signal, the customer's is the meeting's.
   */
  partnerAccountTypes: readonly string[];
  /** Whether a personal address (gmail.com…) that is exactly a Contact's email matches; its domain never does. */
  personalEmailContacts: boolean;
  /** Whether opportunity team members count as the owner attending (orgs with Opportunity Teams). */
  opportunityTeams: boolean;
  /** Meetings matched within this many days are re-checked when the CRM changes what their match looked at. */
  rematchDays: number;
}

export const DEFAULT_MATCHING: MatchingRules = {
  ambiguous: 'account-only',
  createdAfterDays: 30,
  closedBeforeDays: 14,
  excludeAccountTypes: [],
  partnerAccountTypes: ['Partner', 'Reseller'],
  personalEmailContacts: true,
  opportunityTeams: false,
  rematchDays: 30,
};
