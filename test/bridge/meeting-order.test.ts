import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { describe, expect, it } from 'vitest';

import { normalizeSalesforceId } from '../../src/mapping/salesforce-ids.ts';
import { startFakeSalesforce } from '../fakes/fake-salesforce.ts';
import { startStrictMomentum, type StrictMomentum } from '../fakes/strict-momentum.ts';
import { type NotificationSpec, outboundMessage } from '../salesforce/support/outbound-message-builder.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { type Engine, TEST_DATABASE_URL, testDatabase } from '../support/real-store.ts';
import { describeEachEngine, expectSettled, queryRows } from '../support/stored-state.ts';
import { waitFor } from '../support/wait-for.ts';
import { adminGet, type PacedBridge, postAcknowledged, postRemaps, startPacedBridge } from './support/paced-bridges.ts';

/*
 * The newest state of a meeting wins, whichever bridge received it and whichever mapping finished
 * first. "Newest" is the source's own version when both states carry one (a record's
 * SystemModstamp), else the order the bridge stored them in. A remap made from an older state than
 * one already queued or sent is stored `superseded` with a `stale:` reason and never sent: Momentum's
 * last remap of the meeting always carries the newest state. Two bridges share a database on
 * PostgreSQL only: SQLite serves one process (docs/operations.md, "Several instances").
 */

const id18 = (id15: string) => normalizeSalesforceId(id15)!;
const OPP_OLD = id18('0068d0000101XyZ');
const OPP_NEW = id18('0068d0000202XyZ');
const SLOW_OWNER = id18('0058d0000301XyZ');
const FAST_OWNER = id18('0058d0000302XyZ');
const START = '2026-04-01T15:00:00.000Z';
const TITLE = 'Globex QBR';

interface Delivery {
  id: number;
  state: string;
  meeting: string | null;
  eventId: number | null;
  supersededBy: number | null;
  lastError: string | null;
}

const cleanups = cleanupAfterEach();

async function strictMomentum(): Promise<StrictMomentum> {
  // A generous limit: pacing is not under test here, only what is sent and in which order.
  const momentum = await startStrictMomentum({ requests: 100, windowMs: 60_000 });
  cleanups.push(() => momentum.close());
  return momentum;
}

/** An Event notification of one record state: `n` names the notification (each change is a new one). */
function eventChange(n: number, fields: Record<string, string>): NotificationSpec {
  return {
    id: id18(`04l8d0000${String(n).padStart(3, '0')}XyZ`),
    type: 'sf:Event',
    fields: { Subject: TITLE, StartDateTime: START, ...fields },
  };
}

const opportunityOf = (body: unknown) => (body as { salesforceRecords?: { opportunityId?: string } }).salesforceRecords?.opportunityId;

/**
 * The remap deliveries of the one meeting a test makes: mapped remaps coalesce per meeting
 * (`meeting-id:<n>`, docs/calendars.md), found here by the meeting its Event records resolved to.
 */
async function deliveriesOf(bridge: Pick<PacedBridge, 'url' | 'databaseUrl'>): Promise<Delivery[]> {
  const meetings = await queryRows(bridge.databaseUrl, `SELECT DISTINCT meeting_id FROM meeting_sources`);
  if (meetings.length === 0) return [];
  expect(meetings, 'the Event records of the test are one meeting').toHaveLength(1);
  const meeting = `meeting-id:${String(meetings[0]!.meeting_id)}`;
  const page = await adminGet<{ items: Delivery[] }>(bridge.url, `/admin/deliveries?kind=remap&meeting=${encodeURIComponent(meeting)}`);
  return page.items;
}

/** Waits until the meeting has `count` remap deliveries, none pending or running, and returns them oldest first. */
async function settledDeliveries(bridge: Pick<PacedBridge, 'url' | 'databaseUrl'>, count: number): Promise<Delivery[]> {
  let deliveries: Delivery[] = [];
  await waitFor(
    `${count} settled deliveries of the meeting`,
    async () => {
      deliveries = await deliveriesOf(bridge);
      return deliveries.length === count && deliveries.every((delivery) => delivery.state !== 'pending' && delivery.state !== 'running');
    },
    15_000,
  );
  return deliveries.sort((a, b) => a.id - b.id);
}

describe.skipIf(!TEST_DATABASE_URL)(
  `newest state wins across bridges on one PostgreSQL schema${TEST_DATABASE_URL ? '' : ' (skipped: TEST_DATABASE_URL is unset)'}`,
  () => {
    async function twoBridges(momentum: StrictMomentum, env: Record<string, string> = {}): Promise<[PacedBridge, PacedBridge]> {
      const database = testDatabase('postgres', 'meeting_order');
      cleanups.push(database.drop);
      // One job at a time per bridge: two notifications posted together are mapped on two bridges.
      const start = async () => {
        const bridge = await startPacedBridge({ database, momentumUrl: momentum.url, rateLimit: '100/1m', env: { WORKER_CONCURRENCY: '1', ...env } });
        cleanups.push(bridge.stop);
        return bridge;
      };
      return [await start(), await start()];
    }

    it('when two records of one meeting change within milliseconds on two bridges and the earlier one maps slowly, then Momentum’s last remap is the newer state and the older is stored superseded as stale, never sent', async () => {
      // Arrange: Events of one Zoom meeting (the organiser's and an invitee's copy) map to one meeting;
      // the earlier change's owner lookup takes 1.5 s at Salesforce, the later one's answers at once.
      const momentum = await strictMomentum();
      const salesforce = await startFakeSalesforce({
        clientId: 'bridge-app',
        clientSecret: 'right-secret',
        users: { [SLOW_OWNER]: 'ana.rep@example.com', [FAST_OWNER]: 'bo.rep@example.com' },
        queryDelayMs: (soql) => (soql.includes(SLOW_OWNER) ? 1_500 : 0),
      });
      cleanups.push(salesforce.close);
      const dir = mkdtempSync(path.join(tmpdir(), 'meeting-order-'));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      const mappingFile = path.join(dir, 'mapping.json');
      writeFileSync(mappingFile, JSON.stringify({ sObjects: { Event: { sourceIdField: 'Zoom_Meeting_Id__c', sourceType: 'ZOOM' } } }));
      const [first, second] = await twoBridges(momentum, {
        MAPPING_FILE: mappingFile,
        SALESFORCE_LOGIN_URL: salesforce.url,
        SALESFORCE_CLIENT_ID: 'bridge-app',
        SALESFORCE_CLIENT_SECRET: 'right-secret',
      });
      const zoom = { Zoom_Meeting_Id__c: '98765432101' };
      const older = eventChange(1, { Id: id18('00U8d0000401XyZ'), OwnerId: SLOW_OWNER, WhatId: OPP_OLD, ...zoom });
      const newer = eventChange(2, { Id: id18('00U8d0000402XyZ'), OwnerId: FAST_OWNER, WhatId: OPP_NEW, ...zoom });

      // Act: the older change to one bridge, the newer to the other as soon as the first is acked.
      await postAcknowledged(first.url, outboundMessage({ notifications: [older] }));
      await postAcknowledged(second.url, outboundMessage({ notifications: [newer] }));
      const deliveries = await settledDeliveries(first, 2);
      // Anything sent late would arrive within this pause.
      await new Promise((resolve) => setTimeout(resolve, 300));

      // Assert: mapping finished out of order (the newer state's delivery was made first)…
      const [madeFirst, madeLast] = deliveries;
      expect(madeFirst).toMatchObject({ state: 'succeeded' });
      // …the older state's delivery came last and was stored stale, pointing at the newer one…
      expect(madeLast).toMatchObject({ state: 'superseded', supersededBy: madeFirst!.id });
      expect(madeLast!.lastError).toMatch(/^stale: /);
      expect(madeLast!.eventId).toBeLessThan(madeFirst!.eventId!);
      // …and Momentum heard only the newer state.
      const sent = momentum.accepted().map((request) => request.body);
      expect(sent.map(opportunityOf)).toEqual([OPP_NEW]);
      expect(sent[0]).toMatchObject({ source: { type: 'ZOOM', id: '98765432101' }, meetingDetails: { hostEmail: 'bo.rep@example.com' } });
      expect(salesforce.queries().some((query) => query.soql?.includes(SLOW_OWNER))).toBe(true);
      // Nothing dead, retried or left pending on the shared schema: the stale remap is an ended state.
      await expectSettled(first.databaseUrl);
    });

    it('when the later-posted change carries the older SystemModstamp, then the source’s version wins over the order of receipt: Momentum’s last remap is the newer state, the other stale', async () => {
      // Arrange: one Event record, two changes; the one posted second is the older (Salesforce retried it late).
      const momentum = await strictMomentum();
      const [first, second] = await twoBridges(momentum);
      const record = id18('00U8d0000501XyZ');
      const newerState = eventChange(3, { Id: record, WhatId: OPP_NEW, SystemModstamp: '2026-03-30T10:00:05.000Z' });
      const olderState = eventChange(4, { Id: record, WhatId: OPP_OLD, SystemModstamp: '2026-03-30T10:00:01.000Z' });

      // Act: posted to two bridges within milliseconds, the newer state first.
      await postAcknowledged(first.url, outboundMessage({ notifications: [newerState] }));
      await postAcknowledged(second.url, outboundMessage({ notifications: [olderState] }));
      const deliveries = await settledDeliveries(second, 2);
      await new Promise((resolve) => setTimeout(resolve, 300));

      // Assert: the later-received state is the stale one.
      const [fromNewer, fromOlder] = deliveries;
      expect(fromNewer).toMatchObject({ state: 'succeeded' });
      expect(fromOlder).toMatchObject({ state: 'superseded', supersededBy: fromNewer!.id });
      expect(fromOlder!.lastError).toMatch(/^stale: /);
      expect(fromOlder!.eventId).toBeGreaterThan(fromNewer!.eventId!);
      expect(momentum.accepted().map((request) => opportunityOf(request.body))).toEqual([OPP_NEW]);
      await expectSettled(second.databaseUrl);
    });
  },
);

describeEachEngine('newest state wins on one bridge when Salesforce retries out of order', (engine: Engine) => {
  async function oneBridge(momentum: StrictMomentum, rateLimit: string): Promise<PacedBridge> {
    const database = testDatabase(engine, 'meeting_order_one');
    cleanups.push(database.drop);
    const bridge = await startPacedBridge({ database, momentumUrl: momentum.url, rateLimit });
    cleanups.push(bridge.stop);
    return bridge;
  }

  it('when the change with SystemModstamp T2 arrives and is sent before the one with T1 < T2, then T1’s state is never sent', async () => {
    // Arrange
    const momentum = await strictMomentum();
    const bridge = await oneBridge(momentum, '100/1m');
    const record = id18('00U8d0000601XyZ');

    // Act: T2 first, delivered; then Salesforce's late retry of T1.
    await postAcknowledged(
      bridge.url,
      outboundMessage({ notifications: [eventChange(5, { Id: record, WhatId: OPP_NEW, SystemModstamp: '2026-03-30T10:00:02.000Z' })] }),
    );
    await momentum.waitForAccepted(1);
    await postAcknowledged(
      bridge.url,
      outboundMessage({ notifications: [eventChange(6, { Id: record, WhatId: OPP_OLD, SystemModstamp: '2026-03-30T10:00:01.000Z' })] }),
    );
    const [sentT2, staleT1] = await settledDeliveries(bridge, 2);
    await new Promise((resolve) => setTimeout(resolve, 300));

    // Assert
    expect(sentT2).toMatchObject({ state: 'succeeded' });
    expect(staleT1).toMatchObject({ state: 'superseded', supersededBy: sentT2!.id });
    expect(staleT1!.lastError).toMatch(/^stale: /);
    expect(momentum.accepted().map((request) => opportunityOf(request.body))).toEqual([OPP_NEW]);
    await expectSettled(bridge.databaseUrl);
  });

  it('when T1 < T2 arrives while T2’s remap still waits for the budget, then T2 stays queued and is the one sent; T1 never is', async () => {
    // Arrange: a budget of one call per 2 s, spent by an operator's remap of another meeting.
    const momentum = await strictMomentum();
    const bridge = await oneBridge(momentum, '1/2s');
    const record = id18('00U8d0000701XyZ');
    await postRemaps([bridge.url], ['spends-the-budget'], 1);
    await momentum.waitForAccepted(1);

    // Act: T2, then T1, both while the budget is spent.
    await postAcknowledged(
      bridge.url,
      outboundMessage({ notifications: [eventChange(7, { Id: record, WhatId: OPP_NEW, SystemModstamp: '2026-03-30T10:00:02.000Z' })] }),
    );
    await postAcknowledged(
      bridge.url,
      outboundMessage({ notifications: [eventChange(8, { Id: record, WhatId: OPP_OLD, SystemModstamp: '2026-03-30T10:00:01.000Z' })] }),
    );
    await waitFor('both changes to be mapped', async () => (await deliveriesOf(bridge)).length === 2);
    const whileWaiting = (await deliveriesOf(bridge)).sort((a, b) => a.id - b.id);
    const [sentT2, staleT1] = await settledDeliveries(bridge, 2);
    await new Promise((resolve) => setTimeout(resolve, 300));

    // Assert: T1 never displaced the pending T2; only T2 reached Momentum, after the budget freed.
    expect(whileWaiting.map((delivery) => delivery.state)).toEqual(['pending', 'superseded']);
    expect(sentT2).toMatchObject({ state: 'succeeded' });
    expect(staleT1).toMatchObject({ state: 'superseded', supersededBy: sentT2!.id });
    expect(staleT1!.lastError).toMatch(/^stale: /);
    const meetingCalls = momentum.accepted().filter((request) => opportunityOf(request.body) !== '0065w000023STAmAAO');
    expect(meetingCalls.map((request) => opportunityOf(request.body))).toEqual([OPP_NEW]);
    expect(momentum.rateLimited).toBe(0);
    await expectSettled(bridge.databaseUrl);
  });
});
