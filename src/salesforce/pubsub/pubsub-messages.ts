/**
 * The Pub/Sub API messages as the bridge's proto loading decodes them (src/salesforce/pubsub/proto.ts):
 * field names exactly as in pubsub_api.proto (`keepCase`), `bytes` as Buffer, enums as their names,
 * 64-bit integers as decimal strings, and every field present with its proto3 default (`defaults`).
 * Only the messages of the calls the bridge makes are typed here (docs/protocols.md, Pub/Sub).
 */

export type ReplayPreset = 'LATEST' | 'EARLIEST' | 'CUSTOM';

/** What the client writes on a Subscribe stream; preset and id count only in a stream's first request. */
export interface FetchRequest {
  topic_name?: string;
  replay_preset?: ReplayPreset;
  /** The opaque replay id to start after (CUSTOM only): raw bytes, never a number. */
  replay_id?: Buffer;
  num_requested?: number;
}

export interface EventHeader {
  key: string;
  value: Buffer;
}

export interface ProducerEvent {
  id: string;
  schema_id: string;
  /** A raw Avro datum of the schema `schema_id` names (no container, no header). */
  payload: Buffer;
  headers: EventHeader[];
}

export interface ConsumerEvent {
  /** Absent only from a malformed message; proto3 leaves an unset message field null. */
  event: ProducerEvent | null;
  replay_id: Buffer;
}

export interface FetchResponse {
  events: ConsumerEvent[];
  /** Empty when the server sent none; an empty batch carries it as a keepalive. */
  latest_replay_id: Buffer;
  rpc_id: string;
  pending_num_requested: number;
}

export interface SchemaInfo {
  schema_json: string;
  schema_id: string;
  rpc_id: string;
}

export interface TopicInfo {
  topic_name: string;
  tenant_guid: string;
  can_publish: boolean;
  can_subscribe: boolean;
  schema_id: string;
  rpc_id: string;
}
