import type { ChannelStore } from '../google/channel-store.ts';

/**
 * The store's contract: the only way the rest of the bridge reads or writes durable state.
 * Two engines implement it (sqlite-store.ts, postgres-store.ts); one conformance suite tests both.
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
}

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
  /** Only jobs no other job replays yet (bulk replay must not send one delivery twice). */
  notReplayed?: boolean;
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

export interface InboundMessage {
  id: number;
  source: string;
  senderId: string | null;
  rawPayload: string;
  receivedAt: number;
}

export interface Store {
  readonly engine: 'sqlite' | 'postgres';
  /** Google Calendar watch channels, watched calendars and singleton leases, in the same database. */
  readonly channels: ChannelStore;
  migrate(): Promise<void>;
  /** Resolves while the store answers. SQLite also rejects (an AppError, 503) while its writes fail for want of disk. */
  ping(): Promise<void>;
  close(): Promise<void>;

  /** Stores a message and its new events, and the jobs `jobsFor` makes for each new event, in one transaction. */
  ingest(message: NewInboundMessage, jobsFor: (event: InboundEvent) => NewJob[]): Promise<IngestResult>;
  enqueue(jobs: NewJob[]): Promise<Job[]>;
  claim(options: ClaimOptions): Promise<Job[]>;
  extendLeases(jobIds: number[], owner: string, leaseMs: number): Promise<void>;
  /** Applies the outcome if `leaseOwner` still holds the job; false when the lease was lost. */
  finish(finish: FinishJob): Promise<boolean>;
  /** Puts this owner's running jobs back to pending (graceful shutdown). */
  releaseLeases(owner: string): Promise<number>;
  /** The id of the pending job of this coalescing key (at most one), if any. */
  pendingOfKey(coalesceKey: string): Promise<number | undefined>;
  /** Earliest run time among pending jobs (or expired leases), for the worker's timer. */
  nextDueAt(): Promise<number | undefined>;

  getJob(id: number): Promise<Job | undefined>;
  getAttempts(jobId: number): Promise<Attempt[]>;
  getEvent(id: number): Promise<InboundEvent | undefined>;
  /** The newest succeeded job of this kind and key, for the "unchanged → not re-sent" rule. */
  lastSucceeded(kind: string, coalesceKey: string): Promise<Job | undefined>;

  /** Counts by kind and state, oldest pending age per kind, dead in the last 24 h (metrics, admin). */
  stats(now?: number): Promise<StoreStats>;
  listJobs(query: JobListQuery): Promise<Job[]>;
  countJobs(filter: JobFilter): Promise<number>;
  listEvents(query: EventListQuery): Promise<InboundEvent[]>;
  getMessage(id: number): Promise<InboundMessage | undefined>;
  /** Pending → cancelled with the reason, atomically; undefined when the job is not pending (or unknown). */
  cancelJob(id: number, reason: string, now?: number): Promise<Job | undefined>;

  /**
   * Token bucket kept in the database, so every instance on this store shares one budget and a
   * restart does not refill it. Refills `capacity` tokens evenly over `windowMs`.
   * Resolves 0 when a token was taken, else the ms until one will be free (nothing taken).
   */
  takeToken(key: string, capacity: number, windowMs: number, now?: number): Promise<number>;
  /** Empties the bucket and refuses tokens until `untilMs` (after a 429). */
  blockBucket(key: string, untilMs: number): Promise<void>;
  bucketState(key: string, capacity: number, windowMs: number, now?: number): Promise<{ tokens: number; blockedUntil: number | null }>;

  /** Calls `listener` whenever jobs may have become claimable (this process, or others via the database). */
  onJobsAvailable(listener: () => void): () => void;
}
