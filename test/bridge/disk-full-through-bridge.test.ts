import { statSync } from 'node:fs';
import type { DatabaseSync } from 'node:sqlite';

import { describe, expect, it } from 'vitest';

import type { RunningBridge } from '../../src/bridge.ts';
import { watchSqliteConnectionsForTests } from '../../src/store/sqlite/store.ts';
import { PROBE_INTERVAL_MS } from '../../src/store/sqlite/write-health.ts';
import { postCalendarEvent as postSigned, WEBHOOK_SECRET } from '../calendar/support/signed-events.ts';
import { type FakeMomentum, startFakeMomentum } from '../fakes/fake-momentum.ts';
import { eventNotification, outboundMessage } from '../salesforce/support/outbound-message-builder.ts';
import { postOutboundMessage } from '../salesforce/support/post-outbound-message.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { storedCounts, storedJobs } from '../support/stored-rows.ts';
import { expectSettled, waitSettled } from '../support/stored-state.ts';
import { waitFor } from '../support/wait-for.ts';
import { startSalesforceBridge } from './support/salesforce-bridge.ts';

/*
 * A full disk under the real startBridge wiring, without filling the machine's: PRAGMA
 * max_page_count on the bridge's own SQLite connection (the setting is per connection, hence the
 * engine's test hook) makes every write needing a new page fail with SQLite's genuine SQLITE_FULL,
 * "database or disk is full". Set to 1 it stops at the pages the database already has; raised, the
 * space is back. Each message the tests refuse is larger than a page, so it needs new pages.
 * SQLite only by nature: the full disk is a page cap on the bridge's own SQLite connection, and a
 * full disk on PostgreSQL fails on the database server, not in the bridge's process (the bridge's
 * side of a PostgreSQL outage is in test/metrics/readiness.test.ts).
 */

const OPPORTUNITY = '0068d0000101XyZAAU';
const TERMINAL = new Set(['succeeded', 'dead', 'superseded', 'skipped', 'cancelled']);

const cleanups = cleanupAfterEach();

interface DiskFullBridge {
  bridge: RunningBridge;
  momentum: FakeMomentum;
  file: string;
  fillDisk: () => void;
  freeSpace: () => void;
}

async function bridgeOnADiskThatFills(): Promise<DiskFullBridge> {
  const momentum = await startFakeMomentum();
  cleanups.push(momentum.close);
  let connection: DatabaseSync | undefined;
  let file: string | undefined;
  const stopWatching = watchSqliteConnectionsForTests((db, location) => {
    connection = db;
    file = location;
  });
  const bridge = await startSalesforceBridge(momentum, { env: { CALENDAR_WEBHOOK_SECRETS: WEBHOOK_SECRET } }).finally(stopWatching);
  cleanups.push(bridge.stop);
  return {
    bridge,
    momentum,
    file: file!,
    // VACUUM first: pages a migration freed (dropped tables, indexes) would otherwise take small writes.
    fillDisk: () => void connection!.exec('VACUUM; PRAGMA max_page_count = 1'),
    freeSpace: () => void connection!.exec('PRAGMA max_page_count = 1073741823'),
  };
}

/** Meeting `n` of the opportunity; `large` adds a description longer than a database page. */
const salesforceMessage = (n: number, large = false) =>
  outboundMessage({ notifications: [eventNotification(n, { WhatId: OPPORTUNITY, ...(large ? { Description: 'agenda '.repeat(1000) } : {}) })] });

const postSalesforce = (bridge: RunningBridge, xml: string) => postOutboundMessage(bridge.url, xml);

function postCalendarEvent(bridge: RunningBridge, id: string) {
  const raw = JSON.stringify({
    version: 1,
    id,
    sourceType: 'MS_TEAMS',
    title: 'Globex pricing review',
    start: '2026-03-02T16:00:00Z',
    end: '2026-03-02T16:30:00Z',
    organizer: { email: 'ana.rep@example.com' },
    description: 'agenda '.repeat(1000),
    salesforce: { opportunityId: OPPORTUNITY },
  });
  return postSigned(bridge.url, raw, { id });
}

const readyz = async (bridge: RunningBridge) => {
  const response = await fetch(`${bridge.url}/readyz`);
  return { status: response.status, body: (await response.json()) as { status: string; checks: unknown[] } };
};

/** Message 1 acked, forwarded and its jobs finished: the bridge idle, its WAL holding that work. */
async function deliverFirstMessage({ bridge, momentum, file }: DiskFullBridge): Promise<void> {
  const ack = await postSalesforce(bridge, salesforceMessage(1));
  expect(ack.status).toBe(200);
  await momentum.waitFor(1);
  await waitFor('the first message to be finished', () => {
    const jobs = storedJobs(file);
    return jobs.length > 0 && jobs.every((job) => TERMINAL.has(job.state));
  });
}

const remappedTitles = (momentum: FakeMomentum) =>
  momentum.requests.map((request) => (request.body as { meetingDetails?: { title?: string } }).meetingDetails?.title).sort();

describe('SQLite disk full through startBridge', () => {
  it("when the disk fills, then /readyz answers 503 naming the store's write failure, and neither an Outbound Message nor a calendar event is acked or half stored", async () => {
    // Arrange
    const disk = await bridgeOnADiskThatFills();
    await deliverFirstMessage(disk);
    const storedBefore = storedCounts(disk.file);

    // Act
    disk.fillDisk();
    const salesforce = await postSalesforce(disk.bridge, salesforceMessage(2, true));
    const calendar = await postCalendarEvent(disk.bridge, 'teams-42');
    const ready = await readyz(disk.bridge);
    const live = await fetch(`${disk.bridge.url}/healthz`);

    // Assert: Salesforce retries on a fault; the calendar sender on a 5xx.
    expect(salesforce.status).toBe(500);
    expect(salesforce.headers.get('content-type')).toBe('text/xml; charset=utf-8');
    const fault = await salesforce.text();
    expect(fault).toContain('<faultcode>soapenv:Server</faultcode>');
    expect(fault).not.toContain('<Ack>');
    expect(calendar.status).toBe(500);
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({
      status: 'not ready',
      checks: [
        { name: 'store', ok: false, reason: expect.stringMatching(/^cannot write: database or disk is full \(since \d{4}-\d\d-\d\dT[\d:.]+Z\)$/) },
        { name: 'worker', ok: true },
      ],
    });
    expect(storedCounts(disk.file)).toEqual(storedBefore);
    expect(live.status).toBe(200);
  });

  it('when space returns, then /readyz turns ready by itself within a few seconds, the WAL is truncated, and a new message and the refused one sent again are acked and forwarded', async () => {
    // Arrange
    const disk = await bridgeOnADiskThatFills();
    await deliverFirstMessage(disk);
    disk.fillDisk();
    const refused = await postSalesforce(disk.bridge, salesforceMessage(2, true));
    const notReady = await readyz(disk.bridge);
    const walWhileFull = statSync(`${disk.file}-wal`).size;

    // Act
    disk.freeSpace();
    const freedAt = Date.now();
    await waitFor('/readyz to answer 200', async () => (await readyz(disk.bridge)).status === 200, 3 * PROBE_INTERVAL_MS);
    const readyAfterMs = Date.now() - freedAt;
    const walOnceReady = statSync(`${disk.file}-wal`).size;
    const fresh = await postSalesforce(disk.bridge, salesforceMessage(3));
    const redelivered = await postSalesforce(disk.bridge, salesforceMessage(2, true));
    await disk.momentum.waitFor(3);

    // Assert
    expect(refused.status).toBe(500);
    expect(notReady.status).toBe(503);
    expect(walWhileFull).toBeGreaterThan(0);
    expect(readyAfterMs).toBeLessThan(3 * PROBE_INTERVAL_MS);
    expect(walOnceReady).toBe(0);
    expect(fresh.status).toBe(200);
    expect(await fresh.text()).toContain('<Ack>true</Ack>');
    expect(redelivered.status).toBe(200);
    expect(await redelivered.text()).toContain('<Ack>true</Ack>');
    expect(remappedTitles(disk.momentum)).toEqual(['Meeting 1', 'Meeting 2', 'Meeting 3']);
    expect(storedCounts(disk.file)).toMatchObject({ messages: 3, events: 3 });
    // The refused message left no half-done job behind: every job ended at its first attempt.
    await waitSettled(`sqlite:${disk.file}`);
    await expectSettled(`sqlite:${disk.file}`);
  });
});
