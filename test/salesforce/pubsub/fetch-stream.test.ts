import { fileURLToPath } from 'node:url';

import * as grpc from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';

import { fetchStreamOf } from '../../../src/salesforce/pubsub/fetch-stream.ts';
import { createPubSubClient } from '../../../src/salesforce/pubsub/grpc-client.ts';
import type { FetchResponse, StreamEnd } from '../../../src/salesforce/pubsub/stream-types.ts';
import { TEST_CERT_FILE } from '../../fakes/trust-test-ca.ts';
import { cleanupAfterEach } from '../../support/cleanups.ts';
import { waitFor } from '../../support/wait-for.ts';
import { type LoopbackPubSubOptions, startLoopbackPubSub } from './support/loopback-pubsub.ts';

/*
 * fetchStreamOf over a real grpc-js Subscribe stream to a loopback server over TLS: what the
 * subscription reads (camelCase requests and responses, one end) from what the wire carries
 * (snake_case messages, a status with Salesforce's `error-code` trailer, the CANCELLED of our own
 * cancel) (docs/protocols.md §9).
 */

const cleanups = cleanupAfterEach();
const TRUST = { extraCaFile: fileURLToPath(TEST_CERT_FILE) };
const AUTH = { accessToken: 'token-1', instanceUrl: 'https://example.my.salesforce.com', tenantId: '00D000000000001EAA' };
const TOPIC = '/data/EventChangeEvent';
// Replay ids are opaque bytes, 0x00 and 0xff among them.
const ID_1 = Buffer.from([0x00, 0xff, 0x00, 0x10, 0x01]);
const ID_2 = Buffer.from([0x00, 0xff, 0x00, 0x10, 0x02]);
const CORRUPTED = 'sfdc.platform.eventbus.grpc.subscription.fetch.replayid.corrupted';

const batch = (events: FetchResponse['events'] = [], latest = ID_1) => ({
  events: events.map((event) => ({ event: { id: event.id, schema_id: event.schemaId, payload: event.payload, headers: [] }, replay_id: event.replayId })),
  latest_replay_id: latest,
  rpc_id: 'rpc-1',
  pending_num_requested: 99,
});

/** A stream opened, its first request written, and everything the adapter reported in order. */
async function opened(options: LoopbackPubSubOptions = {}) {
  const server = await startLoopbackPubSub(options);
  cleanups.push(server.close);
  const client = createPubSubClient({ endpoint: server.endpoint, auth: () => AUTH, trust: TRUST });
  cleanups.push(() => client.close());
  const raw = client.subscribe();
  // grpc-js reports the call's final status last, after its 'error' or 'end': the point after which nothing more comes.
  const status = new Promise<grpc.StatusObject>((resolve) => raw.on('status', resolve));
  const stream = fetchStreamOf(raw);
  const seen: Array<{ response: FetchResponse } | { end: StreamEnd }> = [];
  stream.onResponse((response) => seen.push({ response }));
  stream.onEnd((end) => seen.push({ end }));
  stream.write({ topicName: TOPIC, replayPreset: 'CUSTOM', replayId: ID_1, numRequested: 100 });
  const finished = async () => {
    const final = await status;
    await new Promise((resolve) => setImmediate(resolve));
    return final;
  };
  return { server, stream, seen, finished };
}

describe('fetchStreamOf over a grpc-js Subscribe stream', () => {
  it('when the client writes a request, then the server reads it in snake_case with the replay id byte for byte', async () => {
    // Arrange
    const { server } = await opened();

    // Act
    await waitFor('the first request at the server', () => server.calls.some((call) => call.request !== undefined));

    // Assert
    expect(server.calls.find((call) => call.request !== undefined)?.request).toMatchObject({
      topic_name: TOPIC,
      replay_preset: 'CUSTOM',
      replay_id: ID_1,
      num_requested: 100,
    });
  });

  it('when responses arrive, then each is reported in camelCase with its events, replay ids and pending count; a consumed event without its event is dropped; a keepalive has no events', async () => {
    // Arrange
    const event = { id: 'e-1', schemaId: 'schema-1', payload: Buffer.from([0x02, 0x00, 0xff]), replayId: ID_1 };
    const withEmpty = { ...batch([event]), events: [...batch([event]).events, { event: null, replay_id: ID_2 }] };

    // Act
    const { seen } = await opened({ batches: [withEmpty, batch([], ID_2)] });
    await waitFor('two responses', () => seen.length === 2);

    // Assert
    expect(seen).toEqual([
      { response: { events: [event], latestReplayId: ID_1, pendingNumRequested: 99 } },
      { response: { events: [], latestReplayId: ID_2, pendingNumRequested: 99 } },
    ]);
  });

  it('when the server fails the stream with an error-code trailer, then one end is reported, after the responses before it, with the status, the code and the details', async () => {
    // Arrange
    const then = { kind: 'error' as const, code: grpc.status.INVALID_ARGUMENT, details: 'The Replay ID validation failed.', errorCode: CORRUPTED };

    // Act
    const { seen, finished } = await opened({ batches: [batch()], then });
    const status = await finished();

    // Assert
    expect(status.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(seen).toEqual([
      { response: { events: [], latestReplayId: ID_1, pendingNumRequested: 99 } },
      { end: { kind: 'error', code: grpc.status.INVALID_ARGUMENT, errorCode: CORRUPTED, message: 'The Replay ID validation failed.' } },
    ]);
  });

  it('when the server fails the stream without an error-code trailer, then the end has no error code', async () => {
    // Act
    const { seen, finished } = await opened({ then: { kind: 'error', code: grpc.status.UNAVAILABLE, details: 'Connection reset by the server.' } });
    await finished();

    // Assert
    expect(seen).toStrictEqual([{ end: { kind: 'error', code: grpc.status.UNAVAILABLE, message: 'Connection reset by the server.' } }]);
  });

  it('when the server closes the stream cleanly, then one end `closed` is reported after its responses', async () => {
    // Act
    const { seen, finished } = await opened({ batches: [batch()], then: { kind: 'end' } });
    const status = await finished();

    // Assert
    expect(status.code).toBe(grpc.status.OK);
    expect(seen).toEqual([{ response: { events: [], latestReplayId: ID_1, pendingNumRequested: 99 } }, { end: { kind: 'closed' } }]);
  });

  it('when the client cancels the stream itself, then the server sees the cancel, no end is reported, and later writes and cancels do nothing', async () => {
    // Arrange
    const { server, stream, seen, finished } = await opened({ batches: [batch()] });
    await waitFor('the first response', () => seen.length === 1);

    // Act
    stream.cancel();
    const status = await finished();
    stream.write({ topicName: TOPIC, numRequested: 100 });
    stream.cancel();

    // Assert: grpc-js ended the call CANCELLED; the adapter kept it to itself.
    expect(status.code).toBe(grpc.status.CANCELLED);
    await waitFor('the server to see the cancel', () => server.cancelled() === 1);
    expect(seen).toEqual([{ response: { events: [], latestReplayId: ID_1, pendingNumRequested: 99 } }]);
    expect(server.calls.filter((call) => call.request !== undefined)).toHaveLength(1);
  });
});
