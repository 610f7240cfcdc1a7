import { describe, expect, it } from 'vitest';

import { cleanupAfterEach } from '../../support/cleanups.ts';
import { TEST_DATABASE_URL } from '../../support/real-store.ts';
import { expectSettled, waitSettled } from '../../support/stored-state.ts';
import { waitFor } from '../../support/wait-for.ts';
import { ORG_ID } from '../support/outbound-message-builder.ts';
import { EVENTS, OPPORTUNITIES, startCdcWorld, storedCdcEvents, waitForReplayId } from './support/cdc-world.ts';

/*
 * Two bridges on one PostgreSQL subscribe to the same org: each channel is streamed by the one
 * instance holding its lease, and when that instance stops the other takes the channel over from
 * the stored replay id, well within 30 s (docs/operations.md, "Salesforce Pub/Sub").
 */

const cleanups = cleanupAfterEach();
const DEAL = '0068d0000101XyZAAU';
const eventId = (n: number) => `00U8d0000${String(950 + n).padStart(3, '0')}XyZEAU`;

const created = (n: number) => ({
  header: { entityName: 'Event', recordIds: [eventId(n)], changeType: 'CREATE' as const },
  fields: { WhatId: DEAL, Subject: `Call ${n}`, StartDateTime: BigInt(Date.parse(`2026-03-0${n}T16:00:00.000Z`)) },
});

describe.skipIf(TEST_DATABASE_URL === undefined)('Salesforce Change Data Capture with two bridges on PostgreSQL', () => {
  it('when two bridges run, then exactly one streams each channel; when it stops, then the other resumes after the stored id within 30 s: nothing lost or sent twice', async () => {
    // Arrange: the first bridge holds both channels before the second starts.
    const world = await startCdcWorld('postgres', cleanups);
    const first = await world.startBridge();
    const streamsOf = (topic: string) => world.pubsub.openStreams().filter((stream) => stream.topic === topic).length;
    await waitFor('the first bridge to stream both channels', () => streamsOf(EVENTS) === 1 && streamsOf(OPPORTUNITIES) === 1);
    const second = await world.startBridge();
    const one = world.pubsub.publish(EVENTS, created(1));
    await world.momentum.waitFor(1, 15_000);
    await waitForReplayId(first, EVENTS, one.replayId.toString('hex'));
    const store = await second.store();
    const firstHolder = (await store.pubsub.get(ORG_ID, EVENTS))?.holder;
    // The second bridge has had more than one lease check to take a channel.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect([streamsOf(EVENTS), streamsOf(OPPORTUNITIES)]).toEqual([1, 1]);
    expect((await store.pubsub.get(ORG_ID, EVENTS))?.holder).toBe(firstHolder);

    // Act: the holder stops; a change comes right after.
    await first.stop();
    const two = world.pubsub.publish(EVENTS, created(2));
    const stoppedAt = Date.now();
    await world.momentum.waitFor(2, 30_000);

    // Assert: taken over in time, from the stored id, by the other instance.
    expect(Date.now() - stoppedAt).toBeLessThan(30_000);
    await waitForReplayId(second, EVENTS, two.replayId.toString('hex'));
    const cursor = await store.pubsub.get(ORG_ID, EVENTS);
    expect(cursor?.holder).not.toBe(firstHolder);
    expect(cursor?.state).toBe('subscribed');
    const firsts = new Map<string, { preset: string; replayId: string }>();
    for (const request of world.pubsub.fetchRequests) if (request.topic === EVENTS && !firsts.has(request.streamId)) firsts.set(request.streamId, request);
    expect([...firsts.values()].map((request) => [request.preset, request.replayId])).toEqual([
      ['EARLIEST', ''],
      ['CUSTOM', one.replayId.toString('hex')],
    ]);
    await waitSettled(second.databaseUrl);
    expect(world.momentum.requests.map((request) => (request.body as { meetingDetails?: { title?: string } }).meetingDetails?.title)).toEqual([
      'Call 1',
      'Call 2',
    ]);
    expect(await storedCdcEvents(second)).toHaveLength(2);
    await expectSettled(second.databaseUrl);
  });
});
