/**
 * Where each Salesforce Pub/Sub subscription (an org's Change Data Capture channel) stands:
 * the replay id to resume after, what it last received, and how it is doing (migration 19).
 * docs/operations.md, "Salesforce Pub/Sub (Change Data Capture)", describes the states.
 */

/**
 * `subscribed`: the stream is open; `resubscribing`: it closed or failed and is being opened again;
 * `backstop`: the stored replay id was refused (outside retention) and the SOQL backstop reads what
 * changed; `stopped`: no instance subscribes (turned off, or the process stopped).
 */
export const PUBSUB_STATES = ['subscribed', 'resubscribing', 'backstop', 'stopped'] as const;
export type PubSubState = (typeof PUBSUB_STATES)[number];

export interface PubSubCursor {
  orgId: string;
  /** The channel, as subscribed: `/data/OpportunityChangeEvent`. */
  topic: string;
  /** The Pub/Sub API's replay id, byte for byte: opaque, never a number; null before the first event or keepalive. */
  replayId: Uint8Array | null;
  /** The `commitTimestamp` (epoch ms) of the newest stored event; a keepalive leaves it. */
  commitTimestamp: number | null;
  lastEventAt: number | null;
  lastKeepaliveAt: number | null;
  lastError: string | null;
  lastErrorAt: number | null;
  /** How many times the subscription went `resubscribing`. */
  resubscribes: number;
  state: PubSubState;
  /** The instance that noted the state last (the subscription's lease holder), if any. */
  holder: string | null;
  updatedAt: number;
}

/** The replay id of the events of one ingest, stored with them (NewInboundMessage.cursor). */
export interface PubSubCursorAdvance {
  orgId: string;
  topic: string;
  replayId: Uint8Array;
  /** The newest event's `commitTimestamp` (epoch ms); absent when no event of the ingest could be read, and the stored one stays. */
  commitTimestamp?: number;
  at: number;
  /** The subscription's lease: the id is stored only while `owner` holds it unexpired at `at`, else the ingest fails whole. */
  lease?: PubSubLease;
}

export interface PubSubLease {
  name: string;
  owner: string;
}

/**
 * A replay id written by an instance that no longer holds its subscription's lease: refused, so
 * two instances' writes never interleave and move the stored position back (docs/operations.md,
 * "Salesforce Pub/Sub").
 */
export class PubSubLeaseLostError extends Error {
  constructor(lease: PubSubLease) {
    super(`the Pub/Sub lease ${lease.name} is no longer held by ${lease.owner}: nothing stored`);
    this.name = 'PubSubLeaseLostError';
  }
}

export interface PubSubStateNote {
  state: PubSubState;
  /** Why it failed, short and free of secrets; kept (with `at`) until the next error. */
  error?: string;
  at: number;
  /** The instance subscribing; null when none does (stopped); unchanged when absent. */
  holder?: string | null;
}

/** The replay cursors of the Pub/Sub subscriptions. Events advance them through Inbox.ingest. */
export interface PubSubCursors {
  get(orgId: string, topic: string): Promise<PubSubCursor | undefined>;
  /** Every subscription's cursor, by org id then topic. */
  list(): Promise<PubSubCursor[]>;
  /**
   * The replay id of a keepalive (an empty fetch response's `latest_replay_id`). The subscriber
   * saves it only while no event is in flight: saved during one, a crash would skip that event.
   */
  /** With `lease`, saved only while its owner holds it unexpired at `at`; else rejects with PubSubLeaseLostError. */
  saveKeepalive(orgId: string, topic: string, replayId: Uint8Array, at: number, lease?: PubSubLease): Promise<void>;
  /** The subscription's state; `resubscribing` counts one more resubscribe, an `error` is kept with its time. */
  noteState(orgId: string, topic: string, note: PubSubStateNote): Promise<void>;
}
