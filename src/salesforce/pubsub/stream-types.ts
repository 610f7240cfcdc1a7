/**
 * The Pub/Sub API's Subscribe stream as the subscription sees it (docs/protocols.md, Pub/Sub):
 * requests it writes, responses it reads, and how a stream ends. The gRPC client adapts the
 * generated stream to this shape, so the flow control and the recovery rules are tested without
 * a network.
 */

export type ReplayPreset = 'LATEST' | 'EARLIEST' | 'CUSTOM';

/** A FetchRequest: the preset and replay id count only in a stream's first request. */
export interface FetchRequest {
  topicName: string;
  replayPreset?: ReplayPreset;
  /** Opaque bytes; CUSTOM starts strictly after this id. */
  replayId?: Buffer;
  numRequested: number;
}

/** One ConsumerEvent: the Avro payload of its schema and where it stands in the topic. */
export interface ReceivedEvent {
  id: string;
  schemaId: string;
  payload: Buffer;
  replayId: Buffer;
}

/** A FetchResponse; one with no events is a keepalive carrying the newest replay id of the topic. */
export interface FetchResponse {
  events: ReceivedEvent[];
  latestReplayId: Buffer;
  pendingNumRequested?: number;
}

/** How a stream ended: the server closed it, or an error with its gRPC status and Salesforce's `error-code` trailer. */
export type StreamEnd = { kind: 'closed' } | { kind: 'error'; code: number; errorCode?: string; message: string };

export interface FetchStream {
  write(request: FetchRequest): void;
  onResponse(listener: (response: FetchResponse) => void): void;
  /** Called once, however the stream ended (not after cancel). */
  onEnd(listener: (end: StreamEnd) => void): void;
  cancel(): void;
}

/** gRPC status codes the subscription acts on (grpc-js `status`). */
export const GRPC_STATUS = { INVALID_ARGUMENT: 3, INTERNAL: 13, UNAVAILABLE: 14, UNAUTHENTICATED: 16 } as const;
