/**
 * Durable state of Microsoft 365 calendar watching (docs/protocols.md §7): which mailboxes are
 * watched, each one's delta link and last sync, and their Graph subscriptions with the
 * clientState secret Graph echoes on every notification. Times are epoch milliseconds.
 */

export interface WatchedMailbox {
  /** The user principal name or email the mailbox is addressed by in Graph (`/users/{userId}`). */
  userId: string;
  watching: boolean;
  /** `config` (MICROSOFT_CALENDAR_USERS) or `admin` (added at run time). */
  addedBy: string;
  /** The `@odata.deltaLink` of the last delta sync that completed; null until the first full sync. */
  deltaLink: string | null;
  /** When the full sync that set the delta link's date range ran; Graph keeps that range in the link. */
  windowStartedAt: number | null;
  lastSyncAt: number | null;
  /** Why the last sync or subscription attempt failed; null once one succeeds. */
  lastError: string | null;
  updatedAt: number;
}

export interface GraphSubscription {
  /** Graph's subscription id. */
  id: string;
  userId: string;
  /** Random per subscription; compared in constant time with each notification's clientState. */
  clientState: string;
  expiration: number;
  createdAt: number;
  /** When its expiration was last extended (PATCH); renewals are at most one per 10 minutes. */
  renewedAt: number | null;
  /** When it was deleted, replaced or reported removed; a removed subscription is never used again. */
  removedAt: number | null;
}

export interface SubscriptionStore {
  /** Adds the mailbox (or turns watching back on); keeps its delta link. */
  watchMailbox(userId: string, addedBy: string, now: number): Promise<WatchedMailbox>;
  unwatchMailbox(userId: string, now: number): Promise<boolean>;
  /** Adds config mailboxes not seen before; a mailbox an operator stopped stays stopped. */
  seedMailboxes(userIds: readonly string[], now: number): Promise<void>;
  getMailbox(userId: string): Promise<WatchedMailbox | undefined>;
  listMailboxes(): Promise<WatchedMailbox[]>;
  /**
   * Null drops the link (after 410 Gone): the next sync is a full one. `windowStartedAt` is given
   * when a full sync set it (a new date range) and kept when an incremental sync moved it on.
   */
  setDeltaLink(userId: string, deltaLink: string | null, now: number, windowStartedAt?: number): Promise<void>;
  /** The outcome of a sync or of subscription upkeep: `error` undefined clears the last error. */
  recordMailboxOutcome(userId: string, outcome: { syncedAt?: number; error?: string }, now: number): Promise<void>;

  saveSubscription(subscription: GraphSubscription): Promise<void>;
  getSubscription(id: string): Promise<GraphSubscription | undefined>;
  /** The subscriptions of these ids that are stored (removed ones too), in one query whatever their number. */
  getSubscriptions(ids: readonly string[]): Promise<GraphSubscription[]>;
  /** Subscriptions not removed, oldest first. */
  activeSubscriptions(): Promise<GraphSubscription[]>;
  /** A renewal: the new expiration, and `renewedAt`. */
  extendSubscription(id: string, expiration: number, now: number): Promise<void>;
  removeSubscription(id: string, now: number): Promise<void>;
}
