import type {
  ActivityBucket,
  ActivityQuery,
  EventListQuery,
  JobFilter,
  JobListQuery,
  MeetingActivity,
  ReplayGuard,
  ReplayResult,
  StoreStats,
} from './admin-read-types.ts';
import type { ChannelStore } from './channel-store.ts';
import type { Delivered } from './delivered-types.ts';
import type { InboundEvent, InboundMessage, IngestResult, NewInboundMessage } from './inbox-types.ts';
import type { InstanceStore } from './instance-store.ts';
import type { Attempt, ClaimOptions, FinishJob, Job, NewJob } from './job-types.ts';
import type { MatchStore } from './match-types.ts';
import type { MeetingIdentities } from './meeting-identity-types.ts';
import type { ClaimPacing, RateState } from './pacing-types.ts';
import type { PubSubCursors } from './pubsub-types.ts';
import type { Refusals } from './refusal-types.ts';
import type { Retention } from './retention-types.ts';
import type { SubscriptionStore } from './subscription-store.ts';

/**
 * The store's contract: the only way the rest of the bridge reads or writes durable state.
 * Two engines implement it (sqlite/store.ts, postgres/store.ts); one conformance suite tests both.
 * Times are epoch milliseconds; payloads are JSON-serialisable values. The records it reads and
 * writes are declared by role (job-types.ts, pacing-types.ts, inbox-types.ts, admin-read-types.ts) and exported
 * from here too, so callers import every store type from this file.
 */

export * from './admin-read-types.ts';
export * from './delivered-types.ts';
export * from './inbox-types.ts';
export * from './job-types.ts';
export * from './match-types.ts';
export * from './meeting-identity-types.ts';
export * from './pacing-types.ts';
export * from './pubsub-types.ts';
export * from './refusal-types.ts';
export * from './retention-types.ts';

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
  /** The meeting key (map-event serial key) of each event that has one: events of no source record are absent. */
  meetingKeysOf(eventIds: readonly number[]): Promise<Map<number, string>>;
  /** What each meeting key left behind (its counts and last activity), in the order asked; a key with no event is absent. */
  meetingActivity(meetingKeys: readonly string[]): Promise<MeetingActivity[]>;
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
/** Match records of every mapping run, and operators' pins (docs/calendars.md, matching). */
export interface Matches {
  readonly matches: MatchStore;
}

/** Which source records are one meeting (docs/calendars.md, "One meeting across sources"). */
export interface Meetings {
  readonly meetings: MeetingIdentities;
}

/** The bridge processes on this database and when each was last seen (instance-store.ts). */
export interface Instances {
  readonly instances: InstanceStore;
}

/** The replay cursors of the Salesforce Pub/Sub subscriptions (pubsub-types.ts). */
export interface PubSub {
  readonly pubsub: PubSubCursors;
}

export interface Store
  extends StoreLifecycle, Inbox, JobQueue, AdminReads, RateBudget, CalendarChannels, Matches, Meetings, Delivered, Retention, Refusals, Instances, PubSub {}
