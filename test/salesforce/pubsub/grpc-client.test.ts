import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

import * as grpc from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';

import { createChangeDecoder } from '../../../src/salesforce/pubsub/avro-decoder.ts';
import { createPubSubClient, type PubSubAuth, pubSubErrorCode } from '../../../src/salesforce/pubsub/grpc-client.ts';
import type { FetchResponse } from '../../../src/salesforce/pubsub/pubsub-messages.ts';
import { TEST_CERT_FILE } from '../../fakes/trust-test-ca.ts';
import { cleanupAfterEach } from '../../support/cleanups.ts';
import { cdcSchema, encodeChange, schemaJson } from './support/change-events.ts';
import { type LoopbackPubSubOptions, startLoopbackPubSub } from './support/loopback-pubsub.ts';

const TRUST = { extraCaFile: fileURLToPath(TEST_CERT_FILE) };
const ORG = { instanceUrl: 'https://example.my.salesforce.com', tenantId: '00D000000000001EAA' };
const cleanups = cleanupAfterEach();

async function connected(options: LoopbackPubSubOptions = {}, auth: () => PubSubAuth | Promise<PubSubAuth> = () => ({ accessToken: 'token-1', ...ORG })) {
  const server = await startLoopbackPubSub(options);
  cleanups.push(server.close);
  const client = createPubSubClient({ endpoint: server.endpoint, auth, trust: TRUST });
  cleanups.push(() => client.close());
  return { server, client };
}

describe('createPubSubClient', () => {
  it('when calls are made, then each carries accesstoken, instanceurl and tenantid, and a refreshed token is used from the next call on', async () => {
    let token = 'token-1';
    const { server, client } = await connected({}, () => ({ accessToken: token, ...ORG }));

    await client.getTopic('/data/ContactChangeEvent');
    token = 'token-2';
    await client.getTopic('/data/LeadChangeEvent');

    expect(server.calls).toEqual([
      { method: 'GetTopic', accesstoken: 'token-1', ...lower(ORG), request: { topic_name: '/data/ContactChangeEvent' } },
      { method: 'GetTopic', accesstoken: 'token-2', ...lower(ORG), request: { topic_name: '/data/LeadChangeEvent' } },
    ]);
  });

  it('when the token cannot be had, then the call fails and reaches no handler', async () => {
    const { server, client } = await connected({}, () => Promise.reject(new Error('token refresh refused')));

    await expect(client.getTopic('/data/ContactChangeEvent')).rejects.toMatchObject({ details: expect.stringContaining('token refresh refused') });
    expect(server.calls).toEqual([]);
  });

  it('when a call fails with an error-code trailer, then pubSubErrorCode reads it', async () => {
    const { client } = await connected();

    const failure = await client.getTopic('/event/Nope__e').catch((error: unknown) => error);

    expect((failure as grpc.ServiceError).code).toBe(grpc.status.NOT_FOUND);
    expect(pubSubErrorCode(failure)).toBe('sfdc.platform.eventbus.grpc.service.topic.not.found');
    expect(pubSubErrorCode(new Error('plain'))).toBeUndefined();
  });

  it('when a subscriber starts after a stored replay id, then the request and the events cross the wire as bytes and decode with the fetched schema', async () => {
    const schema = cdcSchema('Opportunity');
    const replayId = Buffer.from('00000000000a1b2c3d4e', 'hex');
    const latest = Buffer.from('00000000000a1b2c3d4f', 'hex');
    const payload = encodeChange(schema, { header: { changedFields: ['0x08'], commitNumber: 2n ** 62n }, fields: { StageName: 'Negotiation' } });
    const batches: FetchResponse[] = [
      {
        events: [{ event: { id: 'e-1', schema_id: 'opp-1', payload, headers: [] }, replay_id: replayId }],
        latest_replay_id: replayId,
        rpc_id: 'rpc-1',
        pending_num_requested: 99,
      },
      { events: [], latest_replay_id: latest, rpc_id: 'rpc-2', pending_num_requested: 99 },
    ];
    const { server, client } = await connected({ schemas: { 'opp-1': schemaJson('Opportunity') }, batches });
    const stream = client.subscribe();
    cleanups.push(() => stream.cancel());
    const received: FetchResponse[] = [];
    const errors: grpc.ServiceError[] = [];
    stream.on('data', (response: FetchResponse) => received.push(response));
    // Cancelling at clean-up ends the stream with CANCELLED, reported as an error like any other.
    stream.on('error', (error: grpc.ServiceError) => errors.push(error));

    stream.write({
      topic_name: '/data/OpportunityChangeEvent',
      replay_preset: 'CUSTOM',
      replay_id: Buffer.from('00000000000a1b2c3d4d', 'hex'),
      num_requested: 100,
    });
    while (received.length < 2) await once(stream, 'data');
    const change = await createChangeDecoder(client.getSchema).decode(received[0]!.events[0]!.event!);

    expect(server.calls.find((call) => call.method === 'Subscribe' && call.request)?.request).toMatchObject({
      topic_name: '/data/OpportunityChangeEvent',
      replay_preset: 'CUSTOM',
      replay_id: Buffer.from('00000000000a1b2c3d4d', 'hex'),
      num_requested: 100,
    });
    expect(server.calls.filter((call) => call.method === 'Subscribe' && call.accesstoken === 'token-1')).toHaveLength(1);
    expect(received[0]!.events[0]!.replay_id).toEqual(replayId);
    expect(received[1]).toEqual({ events: [], latest_replay_id: latest, rpc_id: 'rpc-2', pending_num_requested: 99 });
    expect(change.header).toMatchObject({ commitNumber: '4611686018427387904', changedFields: ['StageName'] });
    expect(change.fields).toEqual({ StageName: 'Negotiation' });
    expect(errors).toEqual([]);
    expect(server.calls.filter((call) => call.method === 'GetSchema').map((call) => call.request)).toEqual([{ schema_id: 'opp-1' }]);
  });
});

function lower(org: typeof ORG) {
  return { instanceurl: org.instanceUrl, tenantid: org.tenantId };
}
