import { describe, expect, it } from 'vitest';

import { waitFor } from '../support/wait-for.ts';
import type { FakePubSub, FakePubSubOptions } from './fake-pubsub.ts';
import { fakePubSubPerTest } from './fake-pubsub-per-test.ts';
import { eventsArrive, requestsHandled, settle, type TestClient } from './pubsub/test-client.ts';

const TOPIC = '/data/OpportunityChangeEvent';

const update = (recordId: string, amount: number) => ({
  header: { entityName: 'Opportunity', recordIds: [recordId], changeType: 'UPDATE' as const },
  fields: { Amount: amount },
});

const openFake = fakePubSubPerTest();

describe('fake Salesforce Pub/Sub API: Subscribe', () => {
  let fake: FakePubSub;
  let client: TestClient;

  async function open(options: FakePubSubOptions = {}) {
    ({ fake, client } = await openFake(options));
  }

  it('when a subscriber asks for fewer events than are retained, then it gets exactly that many, and the rest only as it asks again', async () => {
    await open();
    for (let i = 0; i < 7; i += 1) fake.publish(TOPIC, update(`006${i}`, i));

    const stream = client.subscribe({ topic_name: TOPIC, replay_preset: 'EARLIEST', num_requested: 2 });
    await eventsArrive(stream, 2);
    await settle(300);
    expect(stream.events()).toHaveLength(2);
    expect(stream.responses.at(-1)?.pending_num_requested).toBe(0);

    // Requests add up: 2 + 1 more while none are in flight.
    stream.request({ num_requested: 2 });
    stream.request({ num_requested: 1 });
    await eventsArrive(stream, 5);
    await settle(300);
    expect(stream.events()).toHaveLength(5);
    expect(stream.events().map((event) => event.replay_id)).toEqual(
      fake
        .retained(TOPIC)
        .slice(0, 5)
        .map((event) => event.replayId),
    );
    expect(fake.openStreams()).toEqual([expect.objectContaining({ topic: TOPIC, state: 'streaming', pending: 0, delivered: 5 })]);
  });

  it('when a subscriber asks for more than 100 events, then at most 100 are outstanding', async () => {
    await open();
    const stream = client.subscribe({ topic_name: TOPIC, num_requested: 80 });
    stream.request({ num_requested: 80 });
    await requestsHandled(fake, 2);
    expect(fake.openStreams()[0]?.pending).toBe(100);

    for (let i = 0; i < 130; i += 1) fake.publish(TOPIC, update(`006${i}`, i));
    await eventsArrive(stream, 100);
    await settle(300);
    expect(stream.events()).toHaveLength(100);
  });

  it('when events are published while requests are outstanding, then they arrive in batches carrying the last replay id and the remaining count', async () => {
    await open();
    const stream = client.subscribe({ topic_name: TOPIC, num_requested: 10 });
    await requestsHandled(fake, 1);
    const published = [fake.publish(TOPIC, update('0061', 1)), fake.publish(TOPIC, update('0062', 2))];

    await eventsArrive(stream, 2);
    const withEvents = stream.responses.filter((response) => response.events.length > 0);
    const last = withEvents.at(-1);
    expect(last?.latest_replay_id).toEqual(published[1]?.replayId);
    expect(last?.pending_num_requested).toBe(8);
    expect(last?.rpc_id).toBe(fake.openStreams()[0]?.id);
    expect(stream.events()[0]?.event).toEqual({
      id: published[0]?.eventId,
      schema_id: fake.schemaId('Opportunity'),
      payload: published[0]?.payload,
      headers: [],
    });
  });

  it('when a subscriber starts at LATEST, then it sees only events published after it subscribed', async () => {
    await open();
    fake.publish(TOPIC, update('0061', 1));
    const stream = client.subscribe({ topic_name: TOPIC, replay_preset: 'LATEST', num_requested: 10 });
    await requestsHandled(fake, 1);
    const after = fake.publish(TOPIC, update('0062', 2));

    await eventsArrive(stream, 1);
    await settle(100);
    expect(stream.events().map((event) => event.replay_id)).toEqual([after.replayId]);
  });

  it('when a subscriber starts at CUSTOM with a retained id, then delivery starts strictly after that id', async () => {
    await open();
    const published = [1, 2, 3, 4].map((i) => fake.publish(TOPIC, update(`006${i}`, i)));

    const stream = client.subscribe({ topic_name: TOPIC, replay_preset: 'CUSTOM', replay_id: published[1]?.replayId, num_requested: 10 });
    await eventsArrive(stream, 2);
    await settle(100);
    expect(stream.events().map((event) => event.replay_id)).toEqual([published[2]?.replayId, published[3]?.replayId]);
  });

  it('when a client that lost its place resubscribes from an earlier id, then what followed that id is delivered again', async () => {
    await open();
    const published = [1, 2, 3].map((i) => fake.publish(TOPIC, update(`006${i}`, i)));
    const first = client.subscribe({ topic_name: TOPIC, replay_preset: 'EARLIEST', num_requested: 10 });
    await eventsArrive(first, 3);
    first.cancel();

    const again = client.subscribe({ topic_name: TOPIC, replay_preset: 'CUSTOM', replay_id: published[0]?.replayId, num_requested: 10 });
    await eventsArrive(again, 2);
    expect(again.events().map((event) => event.event.id)).toEqual([published[1]?.eventId, published[2]?.eventId]);
  });

  it('when events are requested but none arrive, then keepalives carry the topic latest replay id', async () => {
    await open({ keepaliveMs: 50 });
    const last = fake.publish(TOPIC, update('0061', 1));
    const stream = client.subscribe({ topic_name: TOPIC, replay_preset: 'LATEST', num_requested: 5 });

    await waitFor('two keepalives', () => stream.responses.length >= 2);
    for (const response of stream.responses) {
      expect(response).toMatchObject({ events: [], pending_num_requested: 5 });
      expect(response.latest_replay_id).toEqual(last.replayId);
    }
  });

  it('when nothing is requested for the idle time, then the server ends the stream', async () => {
    await open({ idleCloseMs: 100 });
    const stream = client.subscribe({ topic_name: TOPIC, num_requested: 0 });

    expect(await stream.status).toMatchObject({ code: 0 });
    expect(stream.responses).toEqual([]);
    expect(fake.openStreams()).toEqual([]);
  });

  it('when a subscriber sends requests, then each is recorded with its preset, hex replay id and count, and the call metadata with it', async () => {
    await open();
    const published = fake.publish(TOPIC, update('0061', 1));
    const stream = client.subscribe({ topic_name: TOPIC, replay_preset: 'CUSTOM', replay_id: published.replayId, num_requested: 3 });
    stream.request({ num_requested: 4 });
    await requestsHandled(fake, 2);

    const streamId = fake.openStreams()[0]?.id;
    expect(fake.fetchRequests).toEqual([
      { streamId, topic: TOPIC, preset: 'CUSTOM', replayId: published.replayId.toString('hex'), numRequested: 3 },
      { streamId, topic: '', preset: 'LATEST', replayId: '', numRequested: 4 },
    ]);
    expect(fake.calls).toEqual([
      { method: 'Subscribe', metadata: expect.objectContaining({ accesstoken: 'valid-token', instanceurl: fake.instanceUrl, tenantid: fake.orgId }) },
    ]);
  });
});
