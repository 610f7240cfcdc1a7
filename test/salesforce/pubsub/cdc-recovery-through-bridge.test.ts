import { expect, it } from 'vitest';

import { cleanupAfterEach } from '../../support/cleanups.ts';
import { describeEachEngine, expectSettled, waitSettled } from '../../support/stored-state.ts';
import { ORG_ID } from '../support/outbound-message-builder.ts';
import { EVENTS, startCdcWorld, storedCdcEvents, waitForReplayId } from './support/cdc-world.ts';

/*
 * How the Change Data Capture subscriber recovers, through the whole bridge on both engines: a
 * restart resumes after the stored replay id; a replay id Salesforce no longer retains restarts
 * from EARLIEST with a SOQL backstop for what fell out; an expired session is signed in again.
 * Each time nothing is lost and nothing reaches Momentum twice (docs/operations.md, "Salesforce Pub/Sub").
 */

const cleanups = cleanupAfterEach();
const DEAL = '0068d0000101XyZAAU';
const eventId = (n: number) => `00U8d0000${String(900 + n).padStart(3, '0')}XyZEAU`;
const startOf = (n: number) => `2026-03-0${n}T16:00:00.000Z`;

/** Event n as the org holds it, changed at `modstamp`. */
const eventRecord = (n: number, modstamp: number) => ({
  Id: eventId(n),
  WhatId: DEAL,
  WhoId: null,
  AccountId: null,
  OwnerId: null,
  Subject: `Call ${n}`,
  StartDateTime: startOf(n),
  SystemModstamp: new Date(modstamp).toISOString(),
});

/** Event n's CREATE, every field given. */
const created = (n: number, commitTimestamp?: number) => ({
  header: { entityName: 'Event', recordIds: [eventId(n)], changeType: 'CREATE' as const, ...(commitTimestamp === undefined ? {} : { commitTimestamp }) },
  fields: { WhatId: DEAL, Subject: `Call ${n}`, StartDateTime: BigInt(Date.parse(startOf(n))) },
});

const titles = (requests: Array<{ body: unknown }>) =>
  requests.map((request) => (request.body as { meetingDetails?: { title?: string } }).meetingDetails?.title).sort();
const firstRequests = (requests: Array<{ streamId: string; topic: string; preset: string; replayId: string }>, topic: string) => {
  const seen = new Set<string>();
  return requests.filter((request) => request.topic === topic && !seen.has(request.streamId) && seen.add(request.streamId));
};

describeEachEngine('Salesforce Change Data Capture recovering, through startBridge', (engine) => {
  it('when the bridge stops and events arrive meanwhile, then the next start resumes after the stored replay id: each change reaches Momentum once', async () => {
    // Arrange: a first bridge stores one event.
    const now = Date.now();
    const world = await startCdcWorld(engine, cleanups, { events: [1, 2].map((n) => eventRecord(n, now)) });
    const first = await world.startBridge();
    const one = world.pubsub.publish(EVENTS, created(1));
    await world.momentum.waitFor(1, 15_000);
    await waitForReplayId(first, EVENTS, one.replayId.toString('hex'));
    await waitSettled(first.databaseUrl);
    await first.stop();

    // Act: a change while no bridge runs; then a bridge starts again.
    const two = world.pubsub.publish(EVENTS, created(2));
    const second = await world.startBridge();
    await world.momentum.waitFor(2, 15_000);

    // Assert: the second stream asked for what came after the stored id.
    const streams = firstRequests(world.pubsub.fetchRequests, EVENTS);
    expect(streams.map((request) => [request.preset, request.replayId])).toEqual([
      ['EARLIEST', ''],
      ['CUSTOM', one.replayId.toString('hex')],
    ]);
    await waitForReplayId(second, EVENTS, two.replayId.toString('hex'));
    await waitSettled(second.databaseUrl);
    expect(titles(world.momentum.requests)).toEqual(['Call 1', 'Call 2']);
    expect((await storedCdcEvents(second)).map((event) => event.dedupeKey.split(':').at(-1))).toEqual([eventId(1), eventId(2)].map((id) => id.slice(0, 15)));
    await expectSettled(second.databaseUrl);
  });

  it('when the stored replay id fell out of retention, then the bridge resubscribes from EARLIEST and reads what changed since its last commit by SOQL: nothing is lost or sent twice', async () => {
    // Arrange: a retention of an hour on a clock of the fake's own, three hours back.
    let clock = Date.now() - 3 * 3_600_000;
    const lastStored = clock;
    const meanwhile = clock + 10 * 60_000;
    const world = await startCdcWorld(engine, cleanups, {
      events: [eventRecord(1, lastStored), eventRecord(2, meanwhile), eventRecord(3, clock + 2 * 3_600_000)],
      pubsub: { now: () => clock, retentionMs: 3_600_000 },
    });
    const first = await world.startBridge();
    const one = world.pubsub.publish(EVENTS, created(1, lastStored));
    await world.momentum.waitFor(1, 15_000);
    await waitForReplayId(first, EVENTS, one.replayId.toString('hex'));
    await waitSettled(first.databaseUrl);
    await first.stop();

    // Act: event 2 while the bridge is down, then two hours pass (events 1 and 2 leave retention) and event 3 comes.
    clock = meanwhile;
    world.pubsub.publish(EVENTS, created(2, meanwhile));
    clock += 2 * 3_600_000;
    const three = world.pubsub.publish(EVENTS, created(3, clock));
    world.org.resetQueries();
    const second = await world.startBridge();
    await world.momentum.waitFor(3, 15_000);

    // Assert: refused, then EARLIEST; the backstop read from the last stored commit.
    const streams = firstRequests(world.pubsub.fetchRequests, EVENTS).slice(1);
    expect(streams.map((request) => [request.preset, request.replayId])).toEqual([
      ['CUSTOM', one.replayId.toString('hex')],
      ['EARLIEST', ''],
    ]);
    expect(world.org.queries()).toContain(
      `SELECT Id, SystemModstamp, WhatId, WhoId, AccountId, Subject, StartDateTime, OwnerId FROM Event WHERE SystemModstamp >= ${new Date(lastStored).toISOString()} ORDER BY SystemModstamp ASC, Id ASC LIMIT 2000`,
    );
    await waitForReplayId(second, EVENTS, three.replayId.toString('hex'));
    await waitSettled(second.databaseUrl);
    // Event 1 read again by the backstop is the same remap: skipped, not sent again.
    expect(titles(world.momentum.requests)).toEqual(['Call 1', 'Call 2', 'Call 3']);
    const keys = (await storedCdcEvents(second)).map((event) => event.dedupeKey.split(':')[0]);
    expect(keys.filter((key) => key === 'salesforce-backstop')).toHaveLength(3);
    const cursor = await (await second.store()).pubsub.get(ORG_ID, EVENTS);
    expect(cursor).toMatchObject({ state: 'subscribed', lastError: expect.stringMatching(/corrupted|replay/i) });
    expect(cursor?.resubscribes).toBeGreaterThanOrEqual(1);
    await expectSettled(second.databaseUrl);
  });

  it('when the session expires while streaming, then the bridge signs in again and resumes after the stored id: the change made meanwhile arrives once', async () => {
    // Arrange
    const now = Date.now();
    const world = await startCdcWorld(engine, cleanups, { events: [1, 2].map((n) => eventRecord(n, now)) });
    const bridge = await world.startBridge();
    const one = world.pubsub.publish(EVENTS, created(1));
    await world.momentum.waitFor(1, 15_000);
    await waitForReplayId(bridge, EVENTS, one.replayId.toString('hex'));
    const signedInWith = world.pubsub.calls.find((call) => call.method === 'Subscribe')?.metadata.accesstoken;

    // Act: every session expires and the streams are cut; a change comes meanwhile.
    world.pubsub.setValidTokens([]);
    world.pubsub.killAllStreams();
    const two = world.pubsub.publish(EVENTS, created(2));
    await world.momentum.waitFor(2, 15_000);

    // Assert: a new token, the stream resumed after the stored id.
    const tokens = new Set(world.pubsub.calls.filter((call) => call.method === 'Subscribe').map((call) => call.metadata.accesstoken));
    expect(tokens.size).toBe(2);
    expect(tokens.has(signedInWith)).toBe(true);
    expect(firstRequests(world.pubsub.fetchRequests, EVENTS).at(-1)).toMatchObject({ preset: 'CUSTOM', replayId: one.replayId.toString('hex') });
    await waitForReplayId(bridge, EVENTS, two.replayId.toString('hex'));
    await waitSettled(bridge.databaseUrl);
    expect(titles(world.momentum.requests)).toEqual(['Call 1', 'Call 2']);
    await expectSettled(bridge.databaseUrl);
  });
});
