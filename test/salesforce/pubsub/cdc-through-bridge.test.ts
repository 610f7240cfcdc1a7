import { expect, it } from 'vitest';

import { sfId } from '../../calendar/support/directory-setup.ts';
import { postCalendarEvent, TEAMS_MEETING } from '../../calendar/support/signed-events.ts';
import { openDeal } from '../../matching/support/crm-world.ts';
import { cleanupAfterEach } from '../../support/cleanups.ts';
import { describeEachEngine, expectSettled, queryRows, waitSettled } from '../../support/stored-state.ts';
import { waitFor } from '../../support/wait-for.ts';
import { ORG_ID } from '../support/outbound-message-builder.ts';
import { EVENTS, OPPORTUNITIES, SALESFORCE_APP, startCdcWorld, storedCdcEvents, storedReplayId, waitForReplayId } from './support/cdc-world.ts';

/*
 * Change Data Capture through the whole bridge (startBridge, the fake Pub/Sub over TLS, the fake
 * org's REST, the fake Momentum) on both engines: a change streamed from Salesforce is stored as
 * an Outbound Message of the same record would be, with its replay id in the same transaction,
 * and mapped, re-matched and delivered the same way (docs/operations.md, "Salesforce Pub/Sub").
 */

const cleanups = cleanupAfterEach();
const EVENT = '00U8d0000901XyZEAU';
const DEAL = sfId('006', 71);
const ACME = sfId('001', 71);
const GAIL = sfId('003', 71);
const START = '2026-03-02T16:00:00.000Z';
const MOVED = '2026-03-02T17:00:00.000Z';
const CREATED_AT = Date.parse('2026-03-01T09:00:00.000Z');
const MOVED_AT = Date.parse('2026-03-01T09:05:00.000Z');

/** The Event as the org holds it: related to the deal, no owner to look up. */
const eventRecord = (start: string, modstamp: number) => ({
  Id: EVENT,
  WhatId: DEAL,
  WhoId: null,
  AccountId: null,
  OwnerId: null,
  Subject: 'Globex QBR',
  StartDateTime: start,
  SystemModstamp: new Date(modstamp).toISOString(),
});

const hexOf = (bytes: Buffer) => bytes.toString('hex');

describeEachEngine('Salesforce Change Data Capture through startBridge', (engine) => {
  it("when an Event is created and then moved, then each state reaches Momentum with the Event's Opportunity, the update's other fields read from the org by REST, and the cursor holds the last replay id", async () => {
    // Arrange
    const world = await startCdcWorld(engine, cleanups, { events: [eventRecord(START, CREATED_AT)] });
    const bridge = await world.startBridge();

    // Act: the rep creates the Event; its CREATE carries every field.
    world.pubsub.publish(EVENTS, {
      header: { entityName: 'Event', recordIds: [EVENT], changeType: 'CREATE', commitTimestamp: CREATED_AT, transactionKey: 'tx-create' },
      fields: { WhatId: DEAL, Subject: 'Globex QBR', StartDateTime: BigInt(Date.parse(START)) },
    });
    const [first] = await world.momentum.waitFor(1, 15_000);
    // Then moves it: the UPDATE names only the new start.
    world.org.org.Event![0] = eventRecord(MOVED, MOVED_AT);
    const moved = world.pubsub.publish(EVENTS, {
      header: { entityName: 'Event', recordIds: [EVENT], changeType: 'UPDATE', commitTimestamp: MOVED_AT, transactionKey: 'tx-move' },
      fields: { StartDateTime: BigInt(Date.parse(MOVED)) },
    });
    const [, second] = await world.momentum.waitFor(2, 15_000);

    // Assert: what Momentum got.
    expect(first?.body).toMatchObject({ salesforceRecords: { opportunityId: DEAL }, meetingDetails: { title: 'Globex QBR', startTime: START } });
    expect(second?.body).toMatchObject({ salesforceRecords: { opportunityId: DEAL }, meetingDetails: { title: 'Globex QBR', startTime: MOVED } });
    // Only the update was read by REST, naming the bridge's client (its own writes are then recognised).
    const reads = world.org.queries().filter((soql) => /FROM Event WHERE Id IN/.test(soql));
    expect(reads).toEqual([expect.stringContaining(`'${EVENT}'`)]);
    expect(world.org.callOptions().every((header) => header === `client=${SALESFORCE_APP.clientId}`)).toBe(true);
    // Assert: what is stored.
    await waitForReplayId(bridge, EVENTS, hexOf(moved.replayId));
    await waitSettled(bridge.databaseUrl);
    const stored = await storedCdcEvents(bridge);
    expect(stored.map((event) => event.dedupeKey)).toEqual([
      `salesforce-cdc:tx-create:1:${EVENT.slice(0, 15)}`,
      `salesforce-cdc:tx-move:1:${EVENT.slice(0, 15)}`,
    ]);
    expect(stored[1]?.payload).toMatchObject({
      organizationId: ORG_ID,
      actionId: EVENTS,
      sObjectType: 'Event',
      fields: { Id: EVENT, WhatId: DEAL, Subject: 'Globex QBR', StartDateTime: MOVED, SystemModstamp: new Date(MOVED_AT).toISOString() },
    });
    const cursor = await (await bridge.store()).pubsub.get(ORG_ID, EVENTS);
    expect(cursor).toMatchObject({ commitTimestamp: MOVED_AT, state: 'subscribed' });
    const jobs = await expectSettled(bridge.databaseUrl);
    expect(jobs.filter((job) => job.kind === 'remap').map((job) => job.state)).toEqual(['succeeded', 'succeeded']);
  });

  it('when an Opportunity is created for an Account whose earlier meeting matched the Account, then the meeting is re-matched to the new Opportunity once', async () => {
    // Arrange: a first call with Gail, matched to her Account.
    const world = await startCdcWorld(engine, cleanups, {
      tables: { accounts: [{ Id: ACME, Website: 'acme.test' }], contacts: [{ Id: GAIL, Email: 'gail@acme.test', AccountId: ACME }] },
    });
    const bridge = await world.startBridge();
    const meeting = JSON.stringify({ ...TEAMS_MEETING, id: 'AAMk-cdc-first-call', start: '2026-03-02T16:00:00Z', attendees: [{ email: 'gail@acme.test' }] });
    expect((await postCalendarEvent(bridge.url, meeting, { id: 'msg_cdc_first' })).status).toBeLessThan(300);
    const [first] = await world.momentum.waitFor(1, 15_000);
    await waitSettled(bridge.databaseUrl);

    // Act: the rep creates the deal with Gail's role; Salesforce streams the Opportunity's CREATE.
    world.org.org.Opportunity!.push(openDeal(DEAL, ACME));
    world.org.org.OpportunityContactRole!.push({ Id: sfId('00K', 71), OpportunityId: DEAL, ContactId: GAIL, IsPrimary: true, Role: 'Decision Maker' });
    const created = world.pubsub.publish(OPPORTUNITIES, {
      header: { entityName: 'Opportunity', recordIds: [DEAL], changeType: 'CREATE', transactionKey: 'tx-deal' },
      fields: { AccountId: ACME, Name: 'Acme platform', StageName: 'Discovery', IsClosed: false, CloseDate: BigInt(Date.parse('2026-06-30')) },
    });
    const [, second] = await world.momentum.waitFor(2, 15_000);

    // Assert
    expect(first?.body).toMatchObject({ salesforceRecords: { accountId: ACME } });
    expect(second?.body).toMatchObject({ salesforceRecords: { opportunityId: DEAL, accountId: ACME } });
    await waitForReplayId(bridge, OPPORTUNITIES, hexOf(created.replayId));
    await waitSettled(bridge.databaseUrl);
    const [latest] = await queryRows(bridge.databaseUrl, 'SELECT outcome, summary FROM match_records ORDER BY id DESC LIMIT 1');
    expect(latest).toMatchObject({
      outcome: 'matched',
      summary: expect.stringMatching(new RegExp(`^Re-matched \\(Opportunity ${DEAL} changed in Salesforce\\)`)),
    });
    expect(await queryRows(bridge.databaseUrl, `SELECT state FROM jobs WHERE kind = 'rematch'`)).toEqual([{ state: 'succeeded' }]);
    expect(world.momentum.requests).toHaveLength(2);
    await expectSettled(bridge.databaseUrl);
  });

  it("when the bridge's own write comes back as a change (changeOrigin client=SALESFORCE_CLIENT_ID), then nothing is stored or sent, the replay id still moves, and the event is counted ignored", async () => {
    // Arrange
    const world = await startCdcWorld(engine, cleanups, { events: [eventRecord(START, CREATED_AT)] });
    const bridge = await world.startBridge();

    // Act
    const own = world.pubsub.publish(EVENTS, {
      header: { entityName: 'Event', recordIds: [EVENT], changeType: 'UPDATE', changeOrigin: `com/salesforce/api/rest/62.0;client=${SALESFORCE_APP.clientId}` },
      fields: { Subject: 'Set by the bridge' },
    });
    await waitForReplayId(bridge, EVENTS, hexOf(own.replayId));

    // Assert
    await waitSettled(bridge.databaseUrl);
    expect(await storedCdcEvents(bridge)).toEqual([]);
    expect(world.momentum.requests).toEqual([]);
    expect(world.org.queries().filter((soql) => /FROM Event/.test(soql))).toEqual([]);
    const metrics = await (await fetch(`${bridge.url}/metrics`)).text();
    expect(metrics).toMatch(/bridge_inbound_events_received_total\{source="salesforce-pubsub"\} 1\b/);
    expect(metrics).toMatch(/bridge_inbound_notifications_total\{source="salesforce-pubsub",outcome="ignored",reason="own_change"\} 1\b/);
    await expectSettled(bridge.databaseUrl);
  });

  it('when a channel is idle, then its keepalives store the newest replay id, and only after the events received are stored', async () => {
    // Arrange
    const world = await startCdcWorld(engine, cleanups, { events: [eventRecord(START, CREATED_AT)] });
    const bridge = await world.startBridge();
    const event = world.pubsub.publish(EVENTS, {
      header: { entityName: 'Event', recordIds: [EVENT], changeType: 'CREATE', commitTimestamp: CREATED_AT },
      fields: { WhatId: DEAL, Subject: 'Globex QBR', StartDateTime: BigInt(Date.parse(START)) },
    });
    await world.momentum.waitFor(1, 15_000);

    // Act: keepalives arrive every 100 ms on both channels.
    const store = await bridge.store();
    await waitFor('a keepalive after the event on each channel', async () => {
      const [events, deals] = [await store.pubsub.get(ORG_ID, EVENTS), await store.pubsub.get(ORG_ID, OPPORTUNITIES)];
      return (events?.lastKeepaliveAt ?? 0) > (events?.lastEventAt ?? Infinity) && deals?.lastKeepaliveAt != null;
    });

    // Assert: the event's channel holds its id and commit; the idle one the topic's newest id, and no commit.
    expect(await storedReplayId(bridge, EVENTS)).toBe(hexOf(world.pubsub.latestReplayId(EVENTS)));
    expect(hexOf(world.pubsub.latestReplayId(EVENTS))).toBe(hexOf(event.replayId));
    expect(await storedReplayId(bridge, OPPORTUNITIES)).toBe(hexOf(world.pubsub.latestReplayId(OPPORTUNITIES)));
    expect(await store.pubsub.get(ORG_ID, EVENTS)).toMatchObject({ commitTimestamp: CREATED_AT, state: 'subscribed' });
    expect(await store.pubsub.get(ORG_ID, OPPORTUNITIES)).toMatchObject({ commitTimestamp: null, lastEventAt: null, state: 'subscribed' });
    await waitSettled(bridge.databaseUrl);
    await expectSettled(bridge.databaseUrl);
  });
});
