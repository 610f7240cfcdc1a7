import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';

import * as grpc from '@grpc/grpc-js';

import { createSessions, metadataRecord } from './pubsub/auth.ts';
import { loadEventSchemas } from './pubsub/avro.ts';
import { encodeChange, gapChange, type HeaderDefaults, overflowChanges } from './pubsub/change-events.ts';
import { authenticationError, statusError, type SubscribeFailure } from './pubsub/errors.ts';
import { createEventLog, type StoredEvent } from './pubsub/event-log.ts';
import {
  type FetchRequest,
  type FetchResponse,
  loadPubSubService,
  type SchemaInfo,
  type SchemaRequest,
  type TopicInfo,
  type TopicRequest,
} from './pubsub/messages.ts';
import { replayIdSequence } from './pubsub/replay-ids.ts';
import { startSubscription, type Subscription } from './pubsub/subscription.ts';
import type { FakePubSub, FakePubSubOptions, PublishedEvent, RecordedCall, RecordedFetchRequest } from './pubsub/types.ts';
import { TEST_CERT_FILE, TEST_KEY_FILE } from './trust-test-ca.ts';

export { OVERFLOW_RECORD_ID } from './pubsub/change-events.ts';
export { ERROR_CODES } from './pubsub/errors.ts';
export type * from './pubsub/types.ts';

/**
 * A fake Salesforce Pub/Sub API: a real grpc-js server over TLS on loopback serving
 * `eventbus.v1.PubSub` from the vendored proto — Subscribe (flow control, replay presets,
 * keepalives, idle close, Salesforce's error trailers), GetSchema and GetTopic — over an in-memory
 * event bus of Avro-encoded change events with opaque, gapped replay ids and a retention window.
 * It records every request and call metadata, and scripts failures and silences.
 */

const CHANGE_EVENT_TOPIC = /^\/data\/(\w+)ChangeEvent$/;

export function createFakePubSub(options: FakePubSubOptions = {}): FakePubSub {
  const orgId = options.orgId ?? '00D000000000001AAA';
  const instanceUrl = options.instanceUrl ?? 'https://fake-org.my.salesforce.com';
  const now = options.now ?? Date.now;
  const schemas = loadEventSchemas();
  const sessions = createSessions({ orgId, instanceUrl }, options.tokens ?? ['valid-token']);
  const log = createEventLog({ now, retentionMs: options.retentionMs ?? 72 * 3_600_000, replayIds: replayIdSequence() });
  for (const schema of schemas.values()) log.addTopic(`/data/${schema.name}`);
  for (const topic of ['/data/ChangeEvents', ...(options.topics ?? [])]) log.addTopic(topic);

  const fetchRequests: RecordedFetchRequest[] = [];
  const calls: RecordedCall[] = [];
  const streams = new Set<Subscription>();
  const scripted: SubscribeFailure[] = [];
  // Salesforce's commit numbers are past 2^53 in real orgs: a client reading them as numbers loses digits.
  let commitNumber = 2n ** 53n + 1_000n;
  const defaults: HeaderDefaults = { now, nextCommitNumber: () => (commitNumber += 7n) };
  let server: grpc.Server | undefined;

  const schemaFor = (entityName: string) => {
    const schema = schemas.get(entityName);
    if (schema === undefined) throw new Error(`the fake has no schema for ${entityName}`);
    return schema;
  };
  const view = (topic: string, stored: StoredEvent): PublishedEvent => ({
    topic,
    replayId: stored.replayId,
    eventId: stored.event.id,
    schemaId: stored.event.schema_id,
    payload: stored.event.payload,
  });
  const publish: FakePubSub['publish'] = (topic, change) => {
    if (!log.hasTopic(topic)) throw new Error(`the fake has no topic ${topic}`);
    const schema = schemaFor(change.header.entityName);
    const payload = encodeChange(schema, change, defaults);
    const stored = log.append(topic, { id: randomUUID(), schema_id: schema.id, payload, headers: [] });
    for (const stream of streams) if (stream.topic() === topic) stream.pump();
    return view(topic, stored);
  };

  const unary = <Request, Reply>(method: RecordedCall['method'], answer: (request: Request, rpcId: string) => Reply | grpc.StatusObject) =>
    ((call: grpc.ServerUnaryCall<Request, Reply>, callback: grpc.sendUnaryData<Reply>) => {
      const rpcId = randomUUID();
      calls.push({ method, metadata: metadataRecord(call.metadata), request: { ...call.request } as Record<string, unknown> });
      if (!sessions.accepts(call.metadata)) return callback(authenticationError(rpcId));
      const reply = answer(call.request, rpcId);
      if (typeof reply === 'object' && reply !== null && 'code' in reply) return callback(reply);
      callback(null, reply);
    }) as grpc.handleUnaryCall<Request, Reply>;

  const getSchema = unary<SchemaRequest, SchemaInfo>('GetSchema', (request, rpcId) => {
    const schema = [...schemas.values()].find((candidate) => candidate.id === request.schema_id);
    if (schema === undefined) return statusError(grpc.status.NOT_FOUND, `The schema ${request.schema_id} was not found.`, rpcId) as grpc.StatusObject;
    return { schema_json: schema.json, schema_id: schema.id, rpc_id: rpcId };
  });
  const getTopic = unary<TopicRequest, TopicInfo>('GetTopic', (request, rpcId) => {
    const name = request.topic_name;
    if (!log.hasTopic(name))
      return statusError(grpc.status.NOT_FOUND, `The topic information for org ${orgId} and topic ${name} not found.`, rpcId) as grpc.StatusObject;
    // A single-object channel has that object's schema; multi-object channels carry each event's own.
    const entity = CHANGE_EVENT_TOPIC.exec(name)?.[1];
    const schemaId = entity === undefined ? '' : (schemas.get(entity)?.id ?? '');
    return { topic_name: name, tenant_guid: orgId, can_publish: false, can_subscribe: true, schema_id: schemaId, rpc_id: rpcId };
  });

  const subscribe: grpc.handleBidiStreamingCall<FetchRequest, FetchResponse> = (call) => {
    calls.push({ method: 'Subscribe', metadata: metadataRecord(call.metadata) });
    if (!sessions.accepts(call.metadata)) return void call.emit('error', authenticationError(randomUUID()));
    const stream = startSubscription(call, {
      log,
      keepaliveMs: options.keepaliveMs ?? 200,
      idleCloseMs: options.idleCloseMs ?? 60_000,
      takeFailure: () => scripted.shift(),
      record: (request, streamId) =>
        fetchRequests.push({
          streamId,
          topic: request.topic_name,
          preset: request.replay_preset,
          replayId: request.replay_id.toString('hex'),
          numRequested: request.num_requested,
        }),
      closed: (closedStream) => streams.delete(closedStream),
    });
    streams.add(stream);
  };

  const failOpenStreams = (failure: SubscribeFailure) => {
    for (const stream of [...streams]) stream.fail(failure);
  };

  return {
    orgId,
    instanceUrl,
    fetchRequests,
    calls,
    async start() {
      const { definition } = loadPubSubService();
      server = new grpc.Server();
      server.addService(definition, { Subscribe: subscribe, GetSchema: getSchema, GetTopic: getTopic });
      const credentials = grpc.ServerCredentials.createSsl(
        null,
        [{ private_key: readFileSync(TEST_KEY_FILE), cert_chain: readFileSync(TEST_CERT_FILE) }],
        false,
      );
      const bound = server;
      const port = await new Promise<number>((resolve, reject) =>
        bound.bindAsync('127.0.0.1:0', credentials, (error, assigned) => (error ? reject(error) : resolve(assigned))),
      );
      return `127.0.0.1:${port}`;
    },
    async close() {
      failOpenStreams('end');
      server?.forceShutdown();
      server = undefined;
    },
    publish,
    publishGap: (topic, entityName, changeType, recordIds, header) => publish(topic, gapChange(entityName, changeType, recordIds, header)),
    publishOverflow: (topic, entityNames, header) => overflowChanges(entityNames, header).map((change) => publish(topic, change)),
    retained: (topic) => log.retained(topic).map((stored) => view(topic, stored)),
    latestReplayId: (topic) => log.latestId(topic),
    schemaId: (entityName) => schemaFor(entityName).id,
    setValidTokens: (tokens) => sessions.setValidTokens(tokens),
    addValidToken: (token) => sessions.addValidToken(token),
    expireToken: (token) => sessions.expireToken(token),
    openStreams: () =>
      [...streams].map((stream) => ({ id: stream.id, topic: stream.topic(), state: stream.state(), pending: stream.pending(), delivered: stream.delivered() })),
    failNextSubscribes(failure, times = 1) {
      for (let i = 0; i < times; i += 1) scripted.push(failure);
    },
    failOpenStreams,
    killAllStreams: () => failOpenStreams({ code: grpc.status.UNAVAILABLE, details: 'Connection reset by the server.' }),
  };
}
