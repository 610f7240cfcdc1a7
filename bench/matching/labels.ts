/**
 * The labelled meeting set's vocabulary: one category per situation matching must get right, and
 * each meeting's expected answer, written from what the meeting is about (docs/calendars.md,
 * matching), never from what the bridge happens to send.
 */

export const CATEGORIES = {
  'single-deal': 'Single deal',
  'contact-role': 'Contact role decides',
  owner: 'Owner decides',
  ambiguous: 'Ambiguous (flag, do not guess)',
  'explicit-link': 'Explicit link in the text',
  'closed-won': 'Closed won days before',
  'created-after': 'Created days after',
  'domain-only': 'Domain only',
  subsidiary: 'Subsidiary (exact host beats subdomain)',
  'partner-customer': 'Partner + customer',
  'shared-email': 'Same email on two accounts',
  lead: 'Lead',
  'personal-email': 'Personal email',
  'internal-only': 'Internal only',
  'unknown-domain': 'Unknown domain',
} as const;

export type Category = keyof typeof CATEGORIES;
/** A category, or the catch-up meetings (catch-up-set.ts): scored by the catch-up phase, not with the categories. */
export type MeetingCategory = Category | 'catch-up';

export interface SentRecords {
  opportunityId?: string;
  accountId?: string;
  leadId?: string;
}

/** One tied candidate of an ambiguous meeting: sending it (or its Account where none is expected) is a guess. */
export interface TiedCandidate {
  opportunityId: string;
  accountId: string;
}

export type Expected =
  /** The records the meeting is about; an absent kind is one the meeting names none of. */
  | ({ kind: 'records' } & SentRecords)
  /** Nothing tells the tied candidates apart: no opportunity may be sent; under account-only, `accountId` (when the tie shares one). */
  | { kind: 'ambiguous'; accountId?: string; tied: TiedCandidate[] }
  /** The meeting is about no CRM record: nothing may be sent. */
  | { kind: 'none' };

export interface LabelledMeeting {
  /** The meeting's id in the sending system (the remap's source.id). */
  id: string;
  category: MeetingCategory;
  sourceType: string;
  title: string;
  startMs: number;
  organizer: string;
  /** Everyone invited, the organizer excepted, as the sender writes them (case and all). */
  attendees: string[];
  description?: string;
  location?: string;
  expected: Expected;
  /** The case in a few words, for the report's list of misses. */
  situation: string;
}
