import { readFileSync } from 'node:fs';

import * as grpc from '@grpc/grpc-js';

import { pubSubService } from '../../../../src/salesforce/pubsub/proto.ts';
import type { FetchRequest, FetchResponse, SchemaInfo, TopicInfo } from '../../../../src/salesforce/pubsub/pubsub-messages.ts';
import { TEST_CERT_FILE, TEST_KEY_FILE } from '../../../fakes/trust-test-ca.ts';

/** What a call presented: its authentication metadata, as the server read it. */
export interface SeenCall {
  method: 'GetTopic' | 'GetSchema' | 'Subscribe';
  accesstoken: string | undefined;
  instanceurl: string | undefined;
  tenantid: string | undefined;
  request?: unknown;
}

export interface LoopbackPubSub {
  endpoint: string;
  calls: SeenCall[];
  /** Subscribe streams the client cancelled, as the server saw them. */
  cancelled: () => number;
  close: () => Promise<void>;
}

/** How a Subscribe stream ends once its batches are written: closed with OK, or a status with Salesforce's `error-code` trailer. */
export type LoopbackEnd = { kind: 'end' } | { kind: 'error'; code: grpc.status; details: string; errorCode?: string };

export interface LoopbackPubSubOptions {
  schemas?: Record<string, string>;
  /** Answers to a Subscribe stream's first request, written in order. */
  batches?: FetchResponse[];
  /** What follows the batches (default: the stream stays open until the client ends it). */
  then?: LoopbackEnd;
}

/**
 * A tiny `eventbus.v1.PubSub` server over TLS on 127.0.0.1 with the test certificate, enough to
 * drive the client modules through a real gRPC round trip (the full fake lives in test/fakes).
 */
export async function startLoopbackPubSub(options: LoopbackPubSubOptions = {}): Promise<LoopbackPubSub> {
  const calls: SeenCall[] = [];
  let cancelled = 0;
  const seen = (method: SeenCall['method'], metadata: grpc.Metadata, request?: unknown): void => {
    const text = (key: string) => metadata.get(key)[0]?.toString();
    calls.push({ method, accesstoken: text('accesstoken'), instanceurl: text('instanceurl'), tenantid: text('tenantid'), request });
  };
  const server = new grpc.Server();
  server.addService(pubSubService().service, {
    GetTopic: (call: grpc.ServerUnaryCall<{ topic_name: string }, TopicInfo>, callback: grpc.sendUnaryData<TopicInfo>) => {
      seen('GetTopic', call.metadata, call.request);
      const name = call.request.topic_name;
      if (!name.startsWith('/data/')) {
        const trailer = new grpc.Metadata();
        trailer.set('error-code', 'sfdc.platform.eventbus.grpc.service.topic.not.found');
        callback({ code: grpc.status.NOT_FOUND, details: `topic ${name} not found`, metadata: trailer });
        return;
      }
      const schemaId = Object.keys(options.schemas ?? {})[0] ?? 'schema-1';
      callback(null, {
        topic_name: name,
        tenant_guid: '00D000000000001EAA',
        can_publish: false,
        can_subscribe: true,
        schema_id: schemaId,
        rpc_id: 'rpc-topic',
      });
    },
    GetSchema: (call: grpc.ServerUnaryCall<{ schema_id: string }, SchemaInfo>, callback: grpc.sendUnaryData<SchemaInfo>) => {
      seen('GetSchema', call.metadata, call.request);
      const json = options.schemas?.[call.request.schema_id];
      if (json === undefined) callback({ code: grpc.status.NOT_FOUND, details: 'no such schema' });
      else callback(null, { schema_json: json, schema_id: call.request.schema_id, rpc_id: 'rpc-schema' });
    },
    Subscribe: (call: grpc.ServerDuplexStream<FetchRequest, FetchResponse>) => {
      seen('Subscribe', call.metadata);
      call.once('data', (request: FetchRequest) => {
        calls.push({ method: 'Subscribe', accesstoken: undefined, instanceurl: undefined, tenantid: undefined, request });
        for (const batch of options.batches ?? []) call.write(batch);
        const then = options.then;
        if (then?.kind === 'end') call.end();
        if (then?.kind === 'error') {
          const trailer = new grpc.Metadata();
          if (then.errorCode !== undefined) trailer.set('error-code', then.errorCode);
          call.emit('error', { code: then.code, details: then.details, metadata: trailer });
        }
      });
      call.on('cancelled', () => (cancelled += 1));
      call.on('end', () => call.end());
    },
  });
  const credentials = grpc.ServerCredentials.createSsl(null, [{ cert_chain: readFileSync(TEST_CERT_FILE), private_key: readFileSync(TEST_KEY_FILE) }]);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', credentials, (error, bound) => (error ? reject(error) : resolve(bound)));
  });
  return {
    endpoint: `127.0.0.1:${port}`,
    calls,
    cancelled: () => cancelled,
    // Streams stay open until cut: a graceful shutdown would wait for them.
    close: async () => server.forceShutdown(),
  };
}
