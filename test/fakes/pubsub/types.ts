import type { ChangeHeaderInput, ChangeInput, GapChangeType } from './change-events.ts';
import type { SubscribeFailure } from './errors.ts';
import type { ReplayPresetName } from './messages.ts';

export type { ChangeHeaderInput, ChangeInput, ChangeType, GapChangeType } from './change-events.ts';
export type { CustomFailure, SubscribeFailure } from './errors.ts';

export interface FakePubSubOptions {
  /** The `tenantid` every call must carry (default `00D000000000001AAA`). */
  orgId?: string;
  /** The `instanceurl` every call must carry (default `https://fake-org.my.salesforce.com`). */
  instanceUrl?: string;
  /** Access tokens accepted at start (default `['valid-token']`). */
  tokens?: string[];
  /** Topics besides the five `/data/<Object>ChangeEvent` ones and `/data/ChangeEvents` (custom channels `/data/X__chn`). */
  topics?: string[];
  /** Keepalive interval while events are requested but none arrive (Salesforce: within 270 s; default 200 ms). */
  keepaliveMs?: number;
  /** How long a stream with nothing requested stays open (Salesforce: 60 s; default 60 s). */
  idleCloseMs?: number;
  /** How long events stay replayable (Salesforce: 72 h, the default). */
  retentionMs?: number;
  /** The clock for commit times and retention (default `Date.now`). */
  now?: () => number;
}

export interface RecordedFetchRequest {
  /** The stream's rpc id (every response of the stream carries it). */
  streamId: string;
  topic: string;
  preset: ReplayPresetName;
  /** The request's replay id in hex ('' when empty). */
  replayId: string;
  numRequested: number;
}

export interface RecordedCall {
  method: 'Subscribe' | 'GetSchema' | 'GetTopic';
  /** A unary call's request (a stream's requests are in `fetchRequests`). */
  request?: Record<string, unknown>;
  metadata: Record<string, string>;
}

export interface StreamView {
  id: string;
  topic: string | undefined;
  state: 'opening' | 'streaming' | 'silent' | 'closed';
  pending: number;
  delivered: number;
}

export interface PublishedEvent {
  topic: string;
  replayId: Buffer;
  eventId: string;
  schemaId: string;
  payload: Buffer;
}

export interface FakePubSub {
  /** Listens on 127.0.0.1 (ephemeral port) over TLS with test/fakes/tls/test-cert.pem; returns `127.0.0.1:<port>`. */
  start(): Promise<string>;
  close(): Promise<void>;
  readonly orgId: string;
  readonly instanceUrl: string;

  /** Commits one change event on a topic; its schema is the one of `header.entityName`. */
  publish(topic: string, change: ChangeInput): PublishedEvent;
  /** A header-only gap event. */
  publishGap(topic: string, entityName: string, changeType: GapChangeType, recordIds: string[], header?: Partial<ChangeHeaderInput>): PublishedEvent;
  /** GAP_OVERFLOW events of one transaction, one per entity, each naming `000000000000000AAA`. */
  publishOverflow(topic: string, entityNames: string[], header?: Partial<ChangeHeaderInput>): PublishedEvent[];
  /** Events still retained on a topic, oldest first. */
  retained(topic: string): PublishedEvent[];
  /** The newest replay id a topic issued (what keepalives carry). */
  latestReplayId(topic: string): Buffer;
  schemaId(entityName: string): string;

  setValidTokens(tokens: string[]): void;
  addValidToken(token: string): void;
  expireToken(token: string): void;

  /** Every FetchRequest received, in order. */
  readonly fetchRequests: RecordedFetchRequest[];
  /** The method and metadata of every call, in order. */
  readonly calls: RecordedCall[];
  /** Streams not yet closed. */
  openStreams(): StreamView[];
  /** The next `times` subscribes (default 1) answer their first request with `failure`. */
  failNextSubscribes(failure: SubscribeFailure, times?: number): void;
  /** Applies a failure to every open stream now (`silent` makes them go quiet mid-stream). */
  failOpenStreams(failure: SubscribeFailure): void;
  /** Cuts every open stream with UNAVAILABLE and no error code, as a server restart does. */
  killAllStreams(): void;
}
