import { expect, it } from 'vitest';

import { cleanupAfterEach } from '../../support/cleanups.ts';
import { describeEachEngine, expectSettled, waitSettled } from '../../support/stored-state.ts';
import { ORG_ID } from '../support/outbound-message-builder.ts';
import { EVENTS, startCdcWorld, storedCdcEvents, waitForReplayId } from './support/cdc-world.ts';

/*
 * Change Data Capture gap events through the whole bridge on both engines. Salesforce sends a gap
 * event, header only, when it could not capture a change's fields, and an overflow event when one
 * transaction changed too many records to stream: the bridge reads the record by REST (a gap) or
 * the whole entity by SystemModstamp around the commit (an overflow), and maps what it read
 * (docs/protocols.md §9; docs/operations.md, "Salesforce Pub/Sub").
 */

const cleanups = cleanupAfterEach();
const DEAL = '0068d0000101XyZAAU';
const eventId = (n: number) => `00U8d0000${String(930 + n).padStart(3, '0')}XyZEAU`;
const COMMIT = Date.parse('2026-03-01T09:00:00.000Z');

/** Event n as the org holds it, last changed at `modstamp`. */
const eventRecord = (n: number, modstamp: number) => ({
  Id: eventId(n),
  WhatId: DEAL,
  WhoId: null,
  AccountId: null,
  OwnerId: null,
  Subject: `Call ${n}`,
  StartDateTime: `2026-03-0${n}T16:00:00.000Z`,
  SystemModstamp: new Date(modstamp).toISOString(),
});

const FIELDS = 'Id, SystemModstamp, WhatId, WhoId, AccountId, Subject, StartDateTime, OwnerId';
const bodies = (requests: Array<{ body: unknown }>) =>
  requests.map((request) => request.body as { salesforceRecords?: { opportunityId?: string }; meetingDetails?: { title?: string; startTime?: string } });

describeEachEngine('Salesforce Change Data Capture gap events through startBridge', (engine) => {
  it('when an overflow event names the Event entity, then Events are read again by SystemModstamp from a minute before the commit, and only those changed then reach Momentum, once each', async () => {
    // Arrange: Event 1 changed long before the overflowing transaction; Events 2 and 3 in it.
    const world = await startCdcWorld(engine, cleanups, {
      events: [eventRecord(1, COMMIT - 3_600_000), eventRecord(2, COMMIT - 5_000), eventRecord(3, COMMIT)],
    });
    const bridge = await world.startBridge();

    // Act
    const [overflow] = world.pubsub.publishOverflow(EVENTS, ['Event'], { commitTimestamp: COMMIT });
    await world.momentum.waitFor(2, 15_000);

    // Assert: one SOQL read of the entity around the commit, none by id.
    await waitForReplayId(bridge, EVENTS, overflow!.replayId.toString('hex'));
    await waitSettled(bridge.databaseUrl);
    const eventQueries = world.org.queries().filter((soql) => /FROM Event\b/.test(soql));
    expect(eventQueries).toEqual([
      `SELECT ${FIELDS} FROM Event WHERE SystemModstamp >= ${new Date(COMMIT - 60_000).toISOString()} ORDER BY SystemModstamp ASC, Id ASC LIMIT 2000`,
    ]);
    const sent = bodies(world.momentum.requests).sort((a, b) => String(a.meetingDetails?.title).localeCompare(String(b.meetingDetails?.title)));
    expect(sent).toEqual([
      expect.objectContaining({
        salesforceRecords: expect.objectContaining({ opportunityId: DEAL }),
        meetingDetails: expect.objectContaining({ title: 'Call 2' }),
      }),
      expect.objectContaining({
        salesforceRecords: expect.objectContaining({ opportunityId: DEAL }),
        meetingDetails: expect.objectContaining({ title: 'Call 3' }),
      }),
    ]);
    // Stored as records read back, keyed by their own state, with the org's SystemModstamp.
    const stored = await storedCdcEvents(bridge);
    expect(stored.map((event) => event.dedupeKey).sort()).toEqual(
      [2, 3].map((n) => `salesforce-backstop:${eventId(n).slice(0, 15)}:${eventRecord(n, n === 2 ? COMMIT - 5_000 : COMMIT).SystemModstamp}`),
    );
    expect(stored.find((event) => event.dedupeKey.includes(eventId(3).slice(0, 15)))?.payload).toMatchObject({
      organizationId: ORG_ID,
      actionId: EVENTS,
      sObjectType: 'Event',
      fields: { Id: eventId(3), WhatId: DEAL, Subject: 'Call 3', SystemModstamp: new Date(COMMIT).toISOString() },
    });
    expect(await (await bridge.store()).pubsub.get(ORG_ID, EVENTS)).toMatchObject({ commitTimestamp: COMMIT, state: 'subscribed' });
    const jobs = await expectSettled(bridge.databaseUrl);
    expect(jobs.filter((job) => job.kind === 'remap').map((job) => job.state)).toEqual(['succeeded', 'succeeded']);
  });

  it('when a GAP_UPDATE names an Event, then the Event is read by id through REST and its state as the org holds it reaches Momentum', async () => {
    // Arrange: the org holds the Event as the gap's change left it.
    const modstamp = COMMIT + 2_000;
    const world = await startCdcWorld(engine, cleanups, { events: [eventRecord(4, modstamp)] });
    const bridge = await world.startBridge();

    // Act: a header-only event; its fields could not be captured.
    const gap = world.pubsub.publishGap(EVENTS, 'Event', 'GAP_UPDATE', [eventId(4)], { commitTimestamp: COMMIT, transactionKey: 'tx-gap' });
    const [sent] = await world.momentum.waitFor(1, 15_000);

    // Assert
    expect(sent?.body).toMatchObject({
      salesforceRecords: { opportunityId: DEAL },
      meetingDetails: { title: 'Call 4', startTime: '2026-03-04T16:00:00.000Z' },
    });
    expect(world.org.queries().filter((soql) => /FROM Event\b/.test(soql))).toEqual([`SELECT ${FIELDS} FROM Event WHERE Id IN ('${eventId(4)}')`]);
    await waitForReplayId(bridge, EVENTS, gap.replayId.toString('hex'));
    await waitSettled(bridge.databaseUrl);
    const stored = await storedCdcEvents(bridge);
    expect(stored).toEqual([
      {
        dedupeKey: `salesforce-cdc:tx-gap:1:${eventId(4).slice(0, 15)}`,
        payload: expect.objectContaining({
          sObjectType: 'Event',
          fields: expect.objectContaining({ Id: eventId(4), WhatId: DEAL, Subject: 'Call 4', SystemModstamp: new Date(modstamp).toISOString() }),
        }),
      },
    ]);
    expect(await (await bridge.store()).pubsub.get(ORG_ID, EVENTS)).toMatchObject({ commitTimestamp: COMMIT, state: 'subscribed' });
    expect(world.momentum.requests).toHaveLength(1);
    await expectSettled(bridge.databaseUrl);
  });
});
