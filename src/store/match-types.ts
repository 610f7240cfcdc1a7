import { boundKey, toJson } from './store-values.ts';

/**
 * Match records and pins as the store keeps them (docs/calendars.md, matching). The store knows
 * their columns, not matching's types: the record itself is JSON that src/matching wrote.
 */

export interface NewMatchRecord {
  eventId: number;
  /** The meeting this event is a state of: the map-event job's serial key (`google:<event id>`…). */
  meetingKey: string;
  outcome: string;
  rule: string;
  summary: string;
  record: unknown;
  /** What the match looked at (attendee emails, Accounts, opportunities, Leads): a change to any re-checks the meeting. */
  touches?: readonly MatchTouch[];
  /** The meeting its source belonged to (meeting-identity-types.ts); kept current when meetings join. */
  meetingId?: number;
}

export interface MatchTouch {
  kind: 'email' | 'contact' | 'account' | 'opportunity' | 'lead';
  value: string;
}

export interface StoredMatch extends Omit<NewMatchRecord, 'meetingId' | 'touches'> {
  id: number;
  meetingId: number | null;
  mapJobId: number | null;
  createdAt: number;
}

export interface PinnedRecords {
  opportunityId?: string;
  accountId?: string;
  leadId?: string;
}

export interface MeetingPin {
  meetingKey: string;
  records: PinnedRecords;
  pinnedBy: string;
  reason: string;
  pinnedAt: number;
}

export interface MatchStore {
  /** The match record that made what was delivered for `eventId` at `at` (the newest at or before it), or the newest. */
  matchFor(eventId: number, at?: number): Promise<StoredMatch | undefined>;
  /** A meeting's match records, newest first. */
  meetingMatches(meetingKey: string, limit: number): Promise<StoredMatch[]>;
  /** The match records of every source of a meeting (its id as MeetingIdentities resolved it), newest first. */
  matchesOfMeeting(meetingId: number, limit: number): Promise<StoredMatch[]>;
  /** Meetings whose newest match has this outcome (`ambiguous`: the queue an operator pins from), newest first. */
  latestByOutcome(outcome: string, limit: number, beforeId?: number): Promise<StoredMatch[]>;
  getPin(meetingKey: string): Promise<MeetingPin | undefined>;
  setPin(pin: MeetingPin): Promise<void>;
  /** Whether there was a pin to clear. */
  clearPin(meetingKey: string): Promise<boolean>;
  /** Meetings whose match since `since` looked at any of `touches`, each once. */
  meetingsTouching(touches: readonly MatchTouch[], since: number, limit: number): Promise<string[]>;
  /** How far the sweep has read an object's changes (its SystemModstamp), or undefined before the first sweep; written with the sweep's outcome (FinishJob.watermarks). */
  getWatermark(object: string): Promise<string | undefined>;
}

/** The parameters of SQL.insertMatchRecord for a finishing map-event job. */
export const matchRecordParams = (match: NewMatchRecord, mapJobId: number, now: number): unknown[] => [
  match.eventId,
  mapJobId,
  boundKey(match.meetingKey),
  match.outcome,
  match.rule,
  match.summary.slice(0, 1000),
  toJson(match.record),
  now,
  match.meetingId ?? null,
];
