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
  toJson(withoutColumns(match.record, { outcome: match.outcome, rule: match.rule, summary: match.summary.slice(0, 1000) })),
  now,
  match.meetingId ?? null,
];

const COLUMN_FIELDS = ['outcome', 'rule', 'summary'] as const;
type ColumnFields = Pick<NewMatchRecord, (typeof COLUMN_FIELDS)[number]>;

/**
 * A record's outcome, rule and summary are stored once, in their columns (the admin filters on
 * them): the record's JSON leaves out a field equal to its column, and reading puts it back
 * (withColumns). The summary alone is about a tenth of a stored match.
 */
function withoutColumns(record: unknown, columns: ColumnFields): unknown {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return record;
  const kept: Record<string, unknown> = { ...(record as Record<string, unknown>) };
  for (const field of COLUMN_FIELDS) if (kept[field] === columns[field]) delete kept[field];
  return kept;
}

/** The stored record with the fields withoutColumns left out, from their columns. */
export function withColumns(record: unknown, columns: ColumnFields): unknown {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return record;
  const fields = record as Record<string, unknown>;
  const missing = COLUMN_FIELDS.filter((field) => !(field in fields));
  return missing.length === 0 ? record : { ...fields, ...Object.fromEntries(missing.map((field) => [field, columns[field]])) };
}
