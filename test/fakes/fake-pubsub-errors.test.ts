import { describe, expect, it } from 'vitest';

import { ERROR_CODES, type FakePubSub, type FakePubSubOptions } from './fake-pubsub.ts';
import { fakePubSubPerTest } from './fake-pubsub-per-test.ts';
import { eventsArrive, requestsHandled, settle, type TestClient } from './pubsub/test-client.ts';

const TOPIC = '/data/EventChangeEvent';
const UNAUTHENTICATED = 16;
const INVALID_ARGUMENT = 3;
const UNAVAILABLE = 14;
const INTERNAL = 13;
const NOT_FOUND = 5;

const created = (recordId: string) => ({ header: { entityName: 'Event', recordIds: [recordId], changeType: 'CREATE' as const }, fields: { Subject: 'Demo' } });

const openFake = fakePubSubPerTest();

describe('fake Salesforce Pub/Sub API: errors, sessions and scripted failures', () => {
  let fake: FakePubSub;
  let client: TestClient;

  async function open(options: FakePubSubOptions = {}) {
    ({ fake, client } = await openFake(options));
  }

  it('when a CUSTOM subscription names an id the topic never issued, then it fails INVALID_ARGUMENT with the replayid.corrupted error code', async () => {
    await open();
    const stream = client.subscribe({ topic_name: TOPIC, replay_preset: 'CUSTOM', replay_id: Buffer.from('00ff00000000000000aa', 'hex'), num_requested: 1 });

    const status = await stream.status;
    expect(status).toMatchObject({ code: INVALID_ARGUMENT, errorCode: ERROR_CODES.replayIdCorrupted });
    expect(status.details).toMatch(/rpcId: [0-9a-f-]{36}$/);
    expect(ERROR_CODES.replayIdCorrupted).toBe('sfdc.platform.eventbus.grpc.subscription.fetch.replayid.corrupted');
  });

  it('when an event has aged out of retention, then its id is corrupted while a retained one still resumes', async () => {
    let clock = 1_000_000;
    await open({ now: () => clock, retentionMs: 60_000 });
    const old = fake.publish(TOPIC, created('00U1'));
    clock += 45_000;
    const recent = fake.publish(TOPIC, created('00U2'));
    const newest = fake.publish(TOPIC, created('00U3'));
    clock += 30_000;

    const expired = client.subscribe({ topic_name: TOPIC, replay_preset: 'CUSTOM', replay_id: old.replayId, num_requested: 5 });
    expect(await expired.status).toMatchObject({ code: INVALID_ARGUMENT, errorCode: ERROR_CODES.replayIdCorrupted });
    const resumed = client.subscribe({ topic_name: TOPIC, replay_preset: 'CUSTOM', replay_id: recent.replayId, num_requested: 5 });
    await eventsArrive(resumed, 1);
    expect(resumed.events().map((event) => event.replay_id)).toEqual([newest.replayId]);
    expect(fake.retained(TOPIC).map((event) => event.eventId)).toEqual([recent.eventId, newest.eventId]);
  });

  it('when a CUSTOM subscription carries no replay id, then it fails with the replayid.validation.failed error code', async () => {
    await open();
    const stream = client.subscribe({ topic_name: TOPIC, replay_preset: 'CUSTOM', num_requested: 1 });
    expect(await stream.status).toMatchObject({ code: INVALID_ARGUMENT, errorCode: ERROR_CODES.replayIdValidationFailed });
  });

  it('when the access token has expired, then every call fails UNAUTHENTICATED, and the rotated token works', async () => {
    await open();
    fake.setValidTokens(['rotated-token']);

    const stream = client.subscribe({ topic_name: TOPIC, num_requested: 1 });
    expect(await stream.status).toMatchObject({ code: UNAUTHENTICATED, errorCode: ERROR_CODES.authError });
    await expect(client.getTopic(TOPIC)).rejects.toMatchObject({ code: UNAUTHENTICATED });
    expect(fake.openStreams()).toEqual([]);

    const topic = await client.getTopic(TOPIC, { accesstoken: 'rotated-token' });
    expect(topic.topic_name).toBe(TOPIC);
  });

  it('when the tenant id or instance URL does not name the org, then the call fails UNAUTHENTICATED', async () => {
    await open();
    await expect(client.getTopic(TOPIC, { tenantid: '00D000000000002AAA' })).rejects.toMatchObject({ code: UNAUTHENTICATED });
    await expect(client.getTopic(TOPIC, { instanceurl: 'https://other.my.salesforce.com' })).rejects.toMatchObject({ code: UNAUTHENTICATED });
    expect(fake.calls.map((call) => call.metadata.tenantid)).toEqual(['00D000000000002AAA', fake.orgId]);
  });

  it('when a subscription names a topic the org does not have, then it fails NOT_FOUND', async () => {
    await open();
    const stream = client.subscribe({ topic_name: '/data/Nope__ChangeEvent', num_requested: 1 });
    expect(await stream.status).toMatchObject({ code: NOT_FOUND });
  });

  it('when the next two subscribes are scripted unavailable, then both fail with service.unavailable and the third streams', async () => {
    await open();
    fake.failNextSubscribes('unavailable', 2);
    const event = fake.publish(TOPIC, created('00U1'));

    for (let i = 0; i < 2; i += 1) {
      const failed = client.subscribe({ topic_name: TOPIC, replay_preset: 'EARLIEST', num_requested: 1 });
      expect(await failed.status).toMatchObject({ code: UNAVAILABLE, errorCode: ERROR_CODES.serviceUnavailable });
    }
    const stream = client.subscribe({ topic_name: TOPIC, replay_preset: 'EARLIEST', num_requested: 1 });
    await eventsArrive(stream, 1);
    expect(stream.events()[0]?.replay_id).toEqual(event.replayId);
    expect(fake.fetchRequests.map((request) => request.preset)).toEqual(['EARLIEST', 'EARLIEST', 'EARLIEST']);
  });

  it('when subscribes are scripted internal, end or custom, then each ends the stream that way', async () => {
    await open();
    fake.failNextSubscribes('internal');
    fake.failNextSubscribes('end');
    fake.failNextSubscribes({ code: UNAVAILABLE, errorCode: 'sfdc.platform.eventbus.grpc.subscription.limit.exceeded', details: 'Too many.' });

    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push(await client.subscribe({ topic_name: TOPIC, num_requested: 1 }).status);
    expect(statuses).toMatchObject([
      { code: INTERNAL, errorCode: undefined },
      { code: 0, errorCode: undefined },
      { code: UNAVAILABLE, errorCode: 'sfdc.platform.eventbus.grpc.subscription.limit.exceeded' },
    ]);
  });

  it('when a subscribe is scripted silent, then the stream stays open and sends nothing, not even keepalives or published events', async () => {
    await open({ keepaliveMs: 30 });
    fake.failNextSubscribes('silent');
    const stream = client.subscribe({ topic_name: TOPIC, num_requested: 5 });
    await requestsHandled(fake, 1);
    fake.publish(TOPIC, created('00U1'));
    stream.request({ num_requested: 5 });

    await requestsHandled(fake, 2);
    await settle(200);
    expect(stream.responses).toEqual([]);
    expect(stream.ended()).toBe(false);
    expect(fake.openStreams()).toMatchObject([{ state: 'silent' }]);
    expect(fake.fetchRequests).toHaveLength(2);
  });

  it('when open streams are silenced mid-stream, then later events are not delivered', async () => {
    await open({ keepaliveMs: 30 });
    const stream = client.subscribe({ topic_name: TOPIC, num_requested: 5 });
    await requestsHandled(fake, 1);
    fake.publish(TOPIC, created('00U1'));
    await eventsArrive(stream, 1);

    fake.failOpenStreams('silent');
    const count = stream.responses.length;
    fake.publish(TOPIC, created('00U2'));
    await settle(200);
    expect(stream.responses).toHaveLength(count);
    expect(stream.ended()).toBe(false);
  });

  it('when all streams are killed, then each ends UNAVAILABLE without an error code and none stays open', async () => {
    await open();
    const streams = [client.subscribe({ topic_name: TOPIC, num_requested: 1 }), client.subscribe({ topic_name: '/data/LeadChangeEvent', num_requested: 1 })];
    await requestsHandled(fake, 2);
    expect(fake.openStreams()).toHaveLength(2);

    fake.killAllStreams();
    for (const stream of streams) expect(await stream.status).toMatchObject({ code: UNAVAILABLE, errorCode: undefined });
    expect(fake.openStreams()).toEqual([]);
  });
});
