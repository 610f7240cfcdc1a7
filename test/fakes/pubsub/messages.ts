import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

import type { ProducerEvent } from '../../../src/salesforce/pubsub/pubsub-messages.ts';

/**
 * The vendored `eventbus.v1` proto, loaded as grpc-js wants it for a server and for a plain test
 * client. Field names keep the proto's snake_case, bytes arrive as Buffers and enums as their names,
 * so what a test asserts reads like the proto itself.
 */

export const PUBSUB_PROTO_FILE = new URL('../../../src/salesforce/pubsub/pubsub_api.proto', import.meta.url);

export const PROTO_LOADER_OPTIONS: protoLoader.Options = { keepCase: true, longs: String, enums: String, bytes: Buffer, defaults: true, oneofs: true };

export type ReplayPresetName = 'LATEST' | 'EARLIEST' | 'CUSTOM';

export interface FetchRequest {
  topic_name: string;
  replay_preset: ReplayPresetName;
  replay_id: Buffer;
  num_requested: number;
  auth_refresh: string;
}

// The messages as the bridge reads them; the server side differs only in what it guarantees present.
export type { EventHeader, ProducerEvent, SchemaInfo, TopicInfo } from '../../../src/salesforce/pubsub/pubsub-messages.ts';

export interface ConsumerEvent {
  event: ProducerEvent;
  replay_id: Buffer;
}

export interface FetchResponse {
  events: ConsumerEvent[];
  latest_replay_id: Buffer;
  rpc_id: string;
  pending_num_requested: number;
}

/** The `eventbus.v1.PubSub` service: its definition for `server.addService` and its client constructor. */
export function loadPubSubService(): { definition: grpc.ServiceDefinition; Client: grpc.ServiceClientConstructor } {
  const packageDefinition = protoLoader.loadSync(PUBSUB_PROTO_FILE.pathname, PROTO_LOADER_OPTIONS);
  const loaded = grpc.loadPackageDefinition(packageDefinition) as unknown as { eventbus: { v1: { PubSub: grpc.ServiceClientConstructor } } };
  const Client = loaded.eventbus.v1.PubSub;
  return { definition: Client.service, Client };
}

export interface SchemaRequest {
  schema_id: string;
}

export interface TopicRequest {
  topic_name: string;
}
