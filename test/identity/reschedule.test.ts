import { expect, it } from 'vitest';

import { postAcknowledged, postRemaps, startPacedBridge } from '../bridge/support/paced-bridges.ts';
import { ADMIN_KEY, startSalesforceBridge } from '../bridge/support/salesforce-bridge.ts';
import { startFakeMomentum } from '../fakes/fake-momentum.ts';
import { ANA, calendarWorld, remaps, startWatching } from '../google/support/calendar-world.ts';
import { meetingEvent } from '../google/support/google-setup.ts';
import { activeChannelIds } from '../google/support/google-state.ts';
import { eventNotification, outboundMessage } from '../salesforce/support/outbound-message-builder.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { testDatabase } from '../support/real-store.ts';
import { describeEachEngine, expectSettled, queryRows, waitSettled } from '../support/stored-state.ts';
import { waitFor } from '../support/wait-for.ts';
import { meetingOfSource } from './support/admin-reads.ts';

/*
 * A meeting moved to a new start keeps its identity, through the real startBridge on both engines.
 * A Salesforce Event's remap names the meeting by its details (title, start, host): Momentum finds
 * it by its start, so the move is sent again, once, with the new start, and a move that arrives
 * while the old state still waits supersedes it. A Google event's remap names it by its source:
 * the move changes nothing Momentum finds it by, and nothing is re-sent.
 */

const OPPORTUNITY = '0068d0000101XyZAAU';
const RECORD = '00U8d0000901XyZEAU';
const cleanups = cleanupAfterEach();

/** A state of the Event record: its start and its SystemModstamp (the record's version). */
const eventState = (n: number, start: string, modstamp: string) =>
  outboundMessage({
    notifications: [eventNotification(n, { Id: RECORD, Subject: 'Globex QBR', StartDateTime: start, WhatId: OPPORTUNITY, SystemModstamp: modstamp })],
  });

const startsOf = (bodies: unknown[]) => bodies.map((body) => (body as { meetingDetails?: { startTime?: string } }).meetingDetails?.startTime);

describeEachEngine('a rescheduled meeting through startBridge', (engine) => {
  it('when a Salesforce Event moves to a new start, then exactly one more remap goes, with the new start, on the same meeting; a change of nothing Momentum sees is not re-sent', async () => {
    // Arrange
    const momentum = await startFakeMomentum();
    cleanups.push(momentum.close);
    const bridge = await startSalesforceBridge(momentum, { engine });
    cleanups.push(bridge.stop);
    await postAcknowledged(bridge.url, eventState(1, '2026-03-02T16:00:00.000Z', '2026-03-01T09:00:00.000Z'));
    await momentum.waitFor(1);
    await waitSettled(bridge.databaseUrl);

    // Act: moved an hour later; then saved again with nothing changed that the remap carries.
    await postAcknowledged(bridge.url, eventState(2, '2026-03-02T17:00:00.000Z', '2026-03-01T09:05:00.000Z'));
    await momentum.waitFor(2);
    await postAcknowledged(bridge.url, eventState(3, '2026-03-02T17:00:00.000Z', '2026-03-01T09:10:00.000Z'));
    await waitFor('the third state to be mapped', async () => (await queryRows(bridge.databaseUrl, `SELECT id FROM jobs WHERE kind = 'remap'`)).length === 3);
    await waitSettled(bridge.databaseUrl);

    // Assert: the first start, then the new one; the third state was the same remap, skipped.
    expect(startsOf(momentum.requests.map((request) => request.body))).toEqual(['2026-03-02T16:00:00.000Z', '2026-03-02T17:00:00.000Z']);
    const jobs = await queryRows(bridge.databaseUrl, `SELECT state, last_error, coalesce_key FROM jobs WHERE kind = 'remap' ORDER BY id`);
    const meeting = await meetingOfSource(bridge.url, ADMIN_KEY, `salesforce:Event:${RECORD.slice(0, 15)}`);
    expect(jobs).toEqual([
      { state: 'succeeded', last_error: null, coalesce_key: `meeting-id:${meeting.meetingId}` },
      { state: 'succeeded', last_error: null, coalesce_key: `meeting-id:${meeting.meetingId}` },
      { state: 'skipped', last_error: 'unchanged', coalesce_key: `meeting-id:${meeting.meetingId}` },
    ]);
    expect(meeting.sources).toEqual([expect.objectContaining({ source: 'salesforce', start: '2026-03-02T17:00:00.000Z', cancelled: false })]);
    await expectSettled(bridge.databaseUrl);
  });

  it('when the move arrives while the earlier state still waits for the budget, then the earlier one is superseded and one remap goes, with the new start', async () => {
    // Arrange: a budget of one call per 2 s, spent by an operator's remap of another meeting.
    const momentum = await startFakeMomentum();
    const database = testDatabase(engine, 'reschedule');
    cleanups.push(momentum.close, database.drop);
    const bridge = await startPacedBridge({ database, momentumUrl: momentum.url, rateLimit: '1/2s' });
    cleanups.push(bridge.stop);
    await postRemaps([bridge.url], ['spends-the-budget'], 1);
    await momentum.waitFor(1);

    // Act
    await postAcknowledged(bridge.url, eventState(4, '2026-03-02T16:00:00.000Z', '2026-03-01T09:00:00.000Z'));
    await postAcknowledged(bridge.url, eventState(5, '2026-03-02T17:00:00.000Z', '2026-03-01T09:05:00.000Z'));
    await momentum.waitFor(2, 15_000);
    await waitSettled(bridge.databaseUrl);

    // Assert: one call for the meeting, carrying the new start; the earlier state never went.
    expect(startsOf(momentum.requests.slice(1).map((request) => request.body))).toEqual(['2026-03-02T17:00:00.000Z']);
    const jobs = await queryRows(bridge.databaseUrl, `SELECT state, coalesce_key FROM jobs WHERE kind = 'remap' AND event_id IS NOT NULL ORDER BY id`);
    expect(jobs.map((job) => job.state)).toEqual(['superseded', 'succeeded']);
    expect(new Set(jobs.map((job) => job.coalesce_key)).size).toBe(1);
    await expectSettled(bridge.databaseUrl);
  });

  it('when a Google event moves to a new start, then its remap, named by its source, is unchanged and not re-sent', async () => {
    // Arrange
    const w = await calendarWorld(engine, cleanups);
    await startWatching(w);
    const [channelId] = await activeChannelIds(w.database.url);
    const fields = { summary: 'Globex QBR', extendedProperties: { private: { sfOpportunityId: OPPORTUNITY } } };
    w.google.upsertEvent(ANA, meetingEvent('evt-moved', 24, fields));
    await w.google.push(channelId!, 'exists');
    await w.momentum.waitFor(1);
    await waitSettled(w.database.url);

    // Act: the same event an hour later.
    w.google.upsertEvent(ANA, meetingEvent('evt-moved', 25, fields));
    await w.google.push(channelId!, 'exists');
    await waitFor('the move to be mapped', async () => (await queryRows(w.database.url, `SELECT id FROM jobs WHERE kind = 'remap'`)).length === 2);
    await waitSettled(w.database.url);

    // Assert
    expect(remaps(w.momentum)).toHaveLength(1);
    const jobs = await queryRows(w.database.url, `SELECT state, last_error FROM jobs WHERE kind = 'remap' ORDER BY id`);
    expect(jobs).toEqual([
      { state: 'succeeded', last_error: null },
      { state: 'skipped', last_error: 'unchanged' },
    ]);
    await expectSettled(w.database.url);
  });
});
