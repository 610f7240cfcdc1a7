import type { EventState } from './inbox-types.ts';
import type { Job, JobState, PriorityClass } from './job-types.ts';

/** What operators and the metrics read from the store: statistics, listings, activity, replays. */

/** What the metrics and the admin stats read: the store's counters and a few index probes (stats-sql.ts). */
export interface StoreStats {
  /** The clock the ages and the 24 h window were computed against. */
  at: number;
  /** Jobs per kind and state; pairs with no job are absent. */
  counts: Array<{ kind: string; state: JobState; count: number }>;
  /** Per kind with pending jobs: its oldest pending job's creation time and age. */
  oldestPending: Array<{ kind: string; createdAt: number; ageMs: number }>;
  /** Per kind: jobs that ended dead in the 24 h before `at` (by the time they ended). */
  deadLast24h: Array<{ kind: string; count: number }>;
  /** Pending jobs per priority class and kind: what goes first under a backlog. */
  pendingByPriority: Array<{ kind: string; priority: PriorityClass; count: number }>;
  /** How much is stored, and since when (retention keeps this bounded). */
  stored: {
    inboundMessages: number;
    inboundEvents: number;
    jobs: number;
    attempts: number;
    /** Epoch ms of the oldest stored inbound event and job; null when there is none. */
    oldestEventAt: number | null;
    oldestJobAt: number | null;
  };
}

/** A keyset position: rows strictly past it in the listing order. */
export interface ListPosition {
  at: number;
  id: number;
}

/** Filters of a job listing (admin read model); every field narrows, all optional. */
export interface JobFilter {
  kinds?: readonly string[];
  states?: readonly JobState[];
  /** createdAt ≥ since. */
  createdSince?: number;
  /** createdAt < until. */
  createdUntil?: number;
  /** updatedAt ≥ since: with ended states, jobs that ended since then (the jobs_ended index). */
  updatedSince?: number;
  coalesceKey?: string;
  eventId?: number;
  replayOf?: number;
  /** The payload's JSON text contains this text, case-sensitively (a Salesforce id). */
  payloadContains?: string;
  /** Text in chosen fields of the payload, ignoring ASCII case; reads every payload (no index): tests and small stores. */
  payloadSearch?: PayloadSearch;
  /**
   * Text in a delivery's search document (read-model-migration.ts: titles, source, meeting id,
   * Salesforce ids, host and attendee emails), A-Z and a-z alike: the operator's search, answered
   * from the trigram index (job-search-sql.ts). Only deliveries (remap, import) have a document.
   */
  textSearch?: string;
  /** Only jobs no other job replays yet (bulk replay must not send one delivery twice). */
  notReplayed?: boolean;
  /** Jobs of the events whose map-event jobs have this serial key: a meeting's deliveries (match records' meeting key). */
  meetingKey?: string;
  /** Jobs of the events of every source of this meeting (MeetingIdentities): a whole meeting's deliveries. */
  meetingId?: number;
  /** Jobs whose match record (their event's newest at or before the job was made: the run that made it) has this outcome. */
  matchOutcome?: string;
}

/**
 * A search of a job's payload: `text` inside one of `fields`, with A-Z and a-z alike and every
 * other character as it is (both engines fold ASCII only, so they find the same jobs).
 */
export interface PayloadSearch {
  text: string;
  /**
   * The values searched, each the string at one JSON path (keys from the payload's root: letters,
   * digits and _), or at several joined with ':' (a source's `TYPE:id`). The values are joined by
   * a newline, so text without one never matches across two of them.
   */
  fields: ReadonlyArray<ReadonlyArray<readonly string[]>>;
}

export interface JobListQuery extends JobFilter {
  /** `newest` (default): createdAt, id descending; `oldest`: ascending. */
  order?: 'newest' | 'oldest';
  after?: ListPosition;
  limit: number;
}

export interface EventListQuery {
  sources?: readonly string[];
  states?: readonly EventState[];
  receivedSince?: number;
  receivedUntil?: number;
  /** Events whose map-event jobs have this serial key: the states of one meeting (match records' meeting key). */
  meetingKey?: string;
  /** Events of every source of this meeting (MeetingIdentities), whichever system each came from. */
  meetingId?: number;
  /** Events whose newest match record has this outcome. */
  matchOutcome?: string;
  /**
   * Text in an event's search document (meeting-search-migration.ts: title, the ids it carries,
   * emails, Salesforce fields, its match records' Salesforce ids), A-Z and a-z alike, answered
   * from the trigram index (job-search-sql.ts).
   */
  textSearch?: string;
  /** Newest first (receivedAt, id descending); `after` continues past this row. */
  after?: ListPosition;
  limit: number;
}

/** What a meeting (one source record: a map-event job's serial key) left behind, counted through its own indexes. */
export interface MeetingActivity {
  meetingKey: string;
  /** Its inbound events (distinct; a reprocessed event counts once), deliveries and match records. */
  events: number;
  deliveries: number;
  matches: number;
  /** Its newest event (by receipt): what names it when no meeting identity does. */
  newestEventId: number | null;
  /** Epoch ms of the newest of: an event received, a delivery created or changed, a match record made. */
  lastActivityAt: number | null;
}

/** Buckets of activity: [since, until) cut into pieces of bucketMs from since (the last may be shorter). */
export interface ActivityQuery {
  since: number;
  until: number;
  bucketMs: number;
  /** The job kinds counted as deliveries. */
  kinds: readonly string[];
}

/** One bucket: inbound events received in it, and jobs of the kinds asked for that reached each ended state in it. */
export interface ActivityBucket {
  /** Epoch ms: since + n × bucketMs. */
  start: number;
  inbound: number;
  succeeded: number;
  dead: number;
  skipped: number;
  superseded: number;
  /** Re-checks of a meeting (rematch jobs) that moved it and sent a remap. */
  rematched: number;
}

/**
 * Which existing replay of a job stops a new one: `anyReplay` (bulk replay: each delivery is
 * replayed once, so running it again continues with the rest) or `activeReplay` (only a replay
 * still pending or running: an operator may replay again once the last replay has ended).
 */
export type ReplayGuard = 'anyReplay' | 'activeReplay';

/** One replay asked of enqueueReplays: the one made, or the existing replay that stood in the way. */
export type ReplayResult = { replayOf: number; created: Job } | { replayOf: number; existingReplayId: number };
