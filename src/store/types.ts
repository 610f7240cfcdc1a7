import type { ChannelStore } from './channel-store.ts';
import type { SubscriptionStore } from './subscription-store.ts';

/**
 * The store's contract: the only way the rest of the bridge reads or writes durable state.
 * Two engines implement it (sqlite/store.ts, postgres/store.ts); one conformance suite tests both.
 * Times are epoch milliseconds; payloads are JSON-serialisable values.
 */

export type JobState = 'pending' | 'running' | 'succeeded' | 'dead' | 'superseded' | 'skipped' | 'cancelled';
export type EventState = 'received' | 'mapped' | 'skipped' | 'failed';

export interface NewJob {
  kind: string;
  payload: unknown;
  /** Jobs sharing a key are coalesced while pending and never run at the same time. */
  coalesceKey?: string;
  runAt?: number;
  eventId?: number;
  /** The job this one replays (admin replay). */
  replayOf?: number;
  /** The upstream budget this job draws one call from when it runs (see ClaimOptions.pacing). */
  rateKey?: string;
  /** JOB_PRIORITY: a claim takes operator actions first, then live changes, then bulk work. */
  priority?: JobPriority;
  /** Jobs sharing a serial key never run at the same time; unlike coalescing, none replaces another. */
  serialKey?: string;
  /**
   * The source's own version of the state this job carries (epoch ms: a record's SystemModstamp, a
   * calendar event's `updated`); with `eventId` it orders the jobs of one coalescing key (see
   * meeting-order.ts). Only jobs made from an inbound event take part in that ordering.
   */
  sourceVersion?: number;
}

/** Priority classes, lowest first: what an operator asked for, then live changes, then bulk replays. */
export const JOB_PRIORITY = { operator: 0, live: 1, bulk: 2 } as const;
export type JobPriority = (typeof JOB_PRIORITY)[keyof typeof JOB_PRIORITY];
export type PriorityClass = keyof typeof JOB_PRIORITY;

export interface Job {
  id: number;
  kind: string;
  payload: unknown;
  coalesceKey: string | null;
  state: JobState;
  /** Attempts made so far (deferrals for pacing do not count). */
  attempts: number;
  runAt: number;
  leaseOwner: string | null;
  leaseUntil: number | null;
  createdAt: number;
  updatedAt: number;
  eventId: number | null;
  supersededBy: number | null;
  replayOf: number | null;
  /** Why the job ended as it did, or the last retryable error. */
  lastError: string | null;
  result: unknown;
  rateKey: string | null;
  priority: JobPriority;
  serialKey: string | null;
  sourceVersion: number | null;
}

export interface AttemptRecord {
  startedAt: number;
  durationMs: number;
  /** HTTP status when a response arrived. */
  status?: number;
  /** `network`, `timeout`, `http_5xx`, `rejected`, `invalid_request`… when it failed. */
  errorClass?: string;
  /** At most 4 KB of the response (the error field of an error body). */
  responseExcerpt?: string;
  upstreamRequestId?: string;
}

export interface Attempt extends AttemptRecord {
  id: number;
  jobId: number;
}

export interface NewInboundMessage {
  source: string;
  /** Who sent it: Salesforce org id, Google channel id, webhook id… */
  senderId?: string;
  /** The payload exactly as received (XML text, JSON text, or the headers of an empty push). */
  rawPayload: string;
  receivedAt?: number;
  events: Array<{ dedupeKey: string; parsedPayload: unknown }>;
}

export interface InboundEvent {
  id: number;
  messageId: number;
  source: string;
  senderId: string | null;
  dedupeKey: string;
  parsedPayload: unknown;
  receivedAt: number;
  state: EventState;
  stateReason: string | null;
}

export type JobOutcome =
  | { state: 'succeeded'; result?: unknown }
  | { state: 'retry'; runAt: number; error: string }
  | { state: 'dead' | 'skipped' | 'cancelled'; reason: string; result?: unknown }
  /** Pacing: back to pending at `runAt`; the attempt count is not raised. */
  | { state: 'deferred'; runAt: number };

export interface FinishJob {
  jobId: number;
  leaseOwner: string;
  outcome: JobOutcome;
  /**
   * A paced job's call slot: `settle` when the call may have reached the upstream (its slot then
   * counts from now, when the answer came back), `refund` when no call was made (the slot is freed).
   */
  rateSlot?: 'settle' | 'refund';
  attempt?: AttemptRecord;
  /** Follow-up jobs, enqueued (with coalescing) in the same transaction. */
  enqueue?: NewJob[];
  eventUpdate?: { eventId: number; state: EventState; reason?: string };
}

export interface ClaimOptions {
  owner: string;
  limit: number;
  leaseMs: number;
  now?: number;
  /**
   * Budgets of paced jobs (jobs with a rate key). A paced job is claimed only with a call slot of
   * its budget, taken in the same transaction, so no window of `windowMs` ever holds more than
   * `requests` calls over every instance on this store; a job with no slot stays pending and is
   * never claimed to be put back. At most `max` paced jobs per claim (the worker's free slots).
   * Absent: pacing is off, and paced jobs are claimed like any other.
   */
  pacing?: ClaimPacing;
}

export interface ClaimPacing {
  /** Every budget whose jobs this worker runs; one without `limit` is not paced (MOMENTUM_RATE_LIMIT=off). */
  budgets: ReadonlyArray<PacedBudget>;
  /** Most paced jobs one claim may take: a paced job is claimed only to start at once. */
  max: number;
}

export interface PacedBudget {
  key: string;
  limit?: { requests: number; windowMs: number };
  /**
   * Longest one call may take (its client's total timeout). A slot is dated this far past its claim
   * until the call's answer settles it: a call whose answer is never stored (its process died, its
   * lease was lost) may have reached the upstream at any moment until then, and counts as if it
   * had arrived at the last one. Dated at the claim instead, such a slot would leave the window
   * while the call it stands for, sent a little after the claim, is still in the upstream's.
   */
  callTimeoutMs?: number;
}

/** A budget as the pacer sees it now (on PostgreSQL, by the database's clock). */
export interface RateState {
  /** Calls in the current window (now - windowMs, now]. */
  used: number;
  /** When the next call may go: now when `used` < the limit and nothing blocks, else later. */
  nextFreeAt: number;
  blockedUntil: number | null;
  /** The clock these times were read against. */
  at: number;
  /** The log these figures come from: the call slots in the window, ascending (some may lie ahead of `at`: calls not yet answered). */
  times: number[];
}

export interface IngestResult {
  created: InboundEvent[];
  /** Dedupe keys that were already stored: acknowledged again, not processed again. */
  duplicates: string[];
}

/** What the metrics and the admin stats read: one consistent pass over the jobs table. */
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
  coalesceKey?: string;
  eventId?: number;
  replayOf?: number;
  /** The payload's JSON text contains this text, case-sensitively (a Salesforce id). */
  payloadContains?: string;
  /** Text in chosen fields of the payload, ignoring ASCII case (an operator's search). */
  payloadSearch?: PayloadSearch;
  /** Only jobs no other job replays yet (bulk replay must not send one delivery twice). */
  notReplayed?: boolean;
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
  /** Newest first (receivedAt, id descending); `after` continues past this row. */
  after?: ListPosition;
  limit: number;
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
}

export interface InboundMessage {
  id: number;
  source: string;
  senderId: string | null;
  rawPayload: string;
  receivedAt: number;
}

/**
 * Which existing replay of a job stops a new one: `anyReplay` (bulk replay: each delivery is
 * replayed once, so running it again continues with the rest) or `activeReplay` (only a replay
 * still pending or running: an operator may replay again once the last replay has ended).
 */
export type ReplayGuard = 'anyReplay' | 'activeReplay';

/** One replay asked of enqueueReplays: the one made, or the existing replay that stood in the way. */
export type ReplayResult = { replayOf: number; created: Job } | { replayOf: number; existingReplayId: number };

/** Opening, health and closing: what the process and /readyz need. */
export interface StoreLifecycle {
  readonly engine: 'sqlite' | 'postgres';
  migrate(): Promise<void>;
  /** Resolves while the store answers. SQLite also rejects (an AppError, 503) while its writes fail for want of disk. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The inbox: what the senders' receivers write before they acknowledge, and the mapping job reads. */
export interface Inbox {
  /** Stores a message and its new events, and the jobs `jobsFor` makes for each new event, in one transaction. */
  ingest(message: NewInboundMessage, jobsFor: (event: InboundEvent) => NewJob[]): Promise<IngestResult>;
  getEvent(id: number): Promise<InboundEvent | undefined>;
  getMessage(id: number): Promise<InboundMessage | undefined>;
}

/** The durable job queue: producers enqueue, the worker claims, runs and finishes. */
export interface JobQueue {
  enqueue(jobs: NewJob[]): Promise<Job[]>;
  /**
   * Enqueues replays (jobs whose `replayOf` names a stored original), each only if its original has
   * no replay the guard counts. The check and the insert are one atomic step per original across
   * every instance on this database (the original's row is locked), so callers racing on one
   * original never both replay it; all of one call commit together. One result per job, in order;
   * a later job naming the same original as an earlier one meets the earlier one's replay. A job
   * without `replayOf` is refused (throws, nothing stored).
   */
  enqueueReplays(replays: readonly NewJob[], guard: ReplayGuard): Promise<ReplayResult[]>;
  claim(options: ClaimOptions): Promise<Job[]>;
  extendLeases(jobIds: number[], owner: string, leaseMs: number): Promise<void>;
  /** Applies the outcome if `leaseOwner` still holds the job; false when the lease was lost. */
  finish(finish: FinishJob): Promise<boolean>;
  /** Puts this owner's running jobs back to pending (graceful shutdown). */
  releaseLeases(owner: string): Promise<number>;
  /** The id of the pending job of this coalescing key (at most one), if any. */
  pendingOfKey(coalesceKey: string): Promise<number | undefined>;
  /**
   * Earliest time a claim could find work: the first pending job's run time (a paced one not before
   * its budget's next free slot) or the first lease expiry, for the worker's timer.
   */
  nextDueAt(pacing?: ClaimPacing): Promise<number | undefined>;
  getJob(id: number): Promise<Job | undefined>;
  getAttempts(jobId: number): Promise<Attempt[]>;
  /** The newest succeeded job of this kind and key, for the "unchanged → not re-sent" rule. */
  lastSucceeded(kind: string, coalesceKey: string): Promise<Job | undefined>;
  /** Calls `listener` whenever jobs may have become claimable (this process, or others via the database). */
  onJobsAvailable(listener: () => void): () => void;
}

/** What operators read and change through the admin API, and the metrics' queue gauges. */
export interface AdminReads {
  /** Counts by kind and state, oldest pending age per kind, dead in the last 24 h (metrics, admin). */
  stats(now?: number): Promise<StoreStats>;
  listJobs(query: JobListQuery): Promise<Job[]>;
  countJobs(filter: JobFilter): Promise<number>;
  listEvents(query: EventListQuery): Promise<InboundEvent[]>;
  /**
   * Every bucket of the range, oldest first, empty ones with zeros: inbound events by the time they
   * were received, jobs of `kinds` by the time they ended succeeded, dead, skipped or superseded.
   */
  activity(query: ActivityQuery): Promise<ActivityBucket[]>;
  /** Pending → cancelled with the reason, atomically; undefined when the job is not pending (or unknown). */
  cancelJob(id: number, reason: string, now?: number): Promise<Job | undefined>;
}

/** The upstream budgets: the pacing log of call slots (taken by JobQueue.claim) and blocks. */
export interface RateBudget {
  /**
   * The pacing log kept in the database (one row per call in the last window), so every instance
   * on this store shares one budget and a restart forgets nothing. Slots are taken by claim().
   */
  rateState(key: string, requests: number, windowMs: number): Promise<RateState>;
  /** No call slots on `key` until `untilMs` (a 429, or the upstream saying its budget is spent), later of two blocks wins. */
  blockRate(key: string, untilMs: number): Promise<void>;
}

/** Calendar watching in the same database: Google channels and calendars (with the singleton leases), Microsoft mailboxes and subscriptions. */
export interface CalendarChannels {
  readonly channels: ChannelStore;
  readonly subscriptions: SubscriptionStore;
}

/**
 * The store's contract: the only way the rest of the bridge reads or writes durable state, as
 * roles that callers ask for by name. Two engines implement it (sqlite/store.ts,
 * postgres/store.ts); one conformance suite tests both.
 */
export interface Store extends StoreLifecycle, Inbox, JobQueue, AdminReads, RateBudget, CalendarChannels {}
