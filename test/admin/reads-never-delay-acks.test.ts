import { expect, it } from 'vitest';

import { runBeforeAdminReadsForTests } from '../../src/store/admin-read-hooks.ts';
import type { Dialect } from '../../src/store/migrations.ts';
import { ADMIN_KEY, startSalesforceBridge } from '../bridge/support/salesforce-bridge.ts';
import { postCalendarEvent, TEAMS_MEETING, WEBHOOK_SECRET } from '../calendar/support/signed-events.ts';
import { startFakeMomentum } from '../fakes/fake-momentum.ts';
import { eventNotification, notificationId, outboundMessage } from '../salesforce/support/outbound-message-builder.ts';
import { postOutboundMessage } from '../salesforce/support/post-outbound-message.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import type { Engine } from '../support/real-store.ts';
import { describeEachEngine, queryRows } from '../support/stored-state.ts';
import type { TestBridge } from '../support/test-bridge.ts';
import { waitFor } from '../support/wait-for.ts';

/*
 * An operator reading the admin API never delays or refuses an ack, on either engine. A read is
 * made genuinely slow by a statement run before it on the admin read path (a recursive count on
 * SQLite, which holds whatever thread runs it; pg_sleep on PostgreSQL, which holds a connection),
 * as a search over millions of stored events would be.
 */

const cleanups = cleanupAfterEach();

/** A statement taking about `seconds` on the admin read path of `dialect`. */
const slowStatement = (seconds: number) => (dialect: Dialect) =>
  dialect === 'sqlite'
    ? `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ${Math.round(seconds * 10_000_000)}) SELECT count(*) AS n FROM c`
    : `SELECT pg_sleep(${seconds})`;

async function bridgeOn(engine: Engine, env: Record<string, string>): Promise<TestBridge> {
  const momentum = await startFakeMomentum();
  cleanups.push(momentum.close);
  const bridge = await startSalesforceBridge(momentum, { engine, env: { CALENDAR_WEBHOOK_SECRETS: WEBHOOK_SECRET, ...env } });
  cleanups.push(bridge.stop);
  return bridge;
}

/** Admin statements run slow while the test runs; counts the admin reads that reached the store. */
function slowAdminReads(seconds: number): { asked: () => number } {
  let asked = 0;
  const slow = slowStatement(seconds);
  cleanups.push(
    runBeforeAdminReadsForTests((dialect) => {
      asked += 1;
      return slow(dialect);
    }),
  );
  return { asked: () => asked };
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number; endedAt: number }> {
  const started = performance.now();
  const value = await work();
  const endedAt = performance.now();
  return { value, ms: endedAt - started, endedAt };
}

const listEvents = (bridge: TestBridge) => fetch(`${bridge.url}/admin/events?limit=5`, { headers: { Authorization: `Bearer ${ADMIN_KEY}` } });
const oneNotification = (n: number) => outboundMessage({ notifications: [eventNotification(n)] });

describeEachEngine('admin reads beside acks', (engine) => {
  it('when ten admin reads of a second or more run at once, then Outbound Messages and a signed calendar event are acked promptly all along and stored', async () => {
    // Arrange: reads this slow would hold the SQLite event loop, or ten of the main pool's connections.
    const bridge = await bridgeOn(engine, { ADMIN_READ_TIMEOUT: '60s' });
    // A count to 15 million takes 1.5 s on an idle core, longer on a busy one.
    const admin = slowAdminReads(engine === 'sqlite' ? 1.5 : 1);

    // Act: ten reads at once; acks one after another until the last read has answered.
    let readsDone = false;
    const reads = Promise.all(Array.from({ length: 10 }, () => timed(async () => (await listEvents(bridge)).status))).finally(() => (readsDone = true));
    await waitFor('the ten admin reads to reach the store', () => admin.asked() >= 10);
    const calendar = await timed(async () => (await postCalendarEvent(bridge.url, JSON.stringify(TEAMS_MEETING), { id: 'msg_during_reads' })).status);
    const acks: Array<{ value: number; ms: number; endedAt: number }> = [];
    while (!readsDone && acks.length < 200) {
      const n = acks.length + 1;
      acks.push(await timed(async () => (await postOutboundMessage(bridge.url, oneNotification(n))).status));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const answered = await reads;

    // Assert: every read was slow and answered; every ack came fast and while reads still ran.
    const lastReadAt = Math.max(...answered.map((read) => read.endedAt));
    expect(answered.map((read) => read.value)).toEqual(Array(10).fill(200));
    expect(Math.min(...answered.map((read) => read.ms))).toBeGreaterThanOrEqual(1000);
    expect(calendar.value).toBe(202);
    expect(calendar.ms).toBeLessThan(300);
    expect(acks.length).toBeGreaterThanOrEqual(5);
    expect(acks.map((ack) => ack.value)).toEqual(acks.map(() => 200));
    expect(Math.max(...acks.map((ack) => ack.ms)), `ack latencies: ${acks.map((ack) => Math.round(ack.ms)).join(', ')} ms`).toBeLessThan(300);
    expect(acks.filter((ack) => ack.endedAt < lastReadAt).length).toBeGreaterThanOrEqual(acks.length - 1);
    // …and each acked notification, and the calendar event, is in the store.
    const stored = await queryRows(bridge.databaseUrl, `SELECT source, dedupe_key FROM inbound_events ORDER BY id`);
    expect(stored.filter((row) => row.source === 'salesforce').map((row) => row.dedupe_key)).toEqual(
      acks.map((_, index) => `salesforce:${notificationId(index + 1)}`),
    );
    expect(stored.filter((row) => row.source === 'calendar')).toEqual([{ source: 'calendar', dedupe_key: 'calendar:msg_during_reads' }]);
  }, 60_000);

  it('when an admin read runs past ADMIN_READ_TIMEOUT, then it is stopped and answered 503 admin_read_timeout, and the next read answers at once', async () => {
    // Arrange: one stored message for the next read to list; then reads of about four seconds.
    const bridge = await bridgeOn(engine, { ADMIN_READ_TIMEOUT: '1s' });
    expect((await postOutboundMessage(bridge.url, oneNotification(1))).status).toBe(200);
    const stopSlowReads = runBeforeAdminReadsForTests(slowStatement(4));
    cleanups.push(stopSlowReads);

    // Act
    const refused = await timed(async () => {
      const response = await listEvents(bridge);
      return { status: response.status, body: (await response.json()) as { error: { code: string; message: string } } };
    });
    stopSlowReads();
    const next = await timed(async () => {
      const response = await listEvents(bridge);
      return { status: response.status, body: (await response.json()) as { items: Array<{ dedupeKey: string }> } };
    });

    // Assert: refused at the limit, long before the statement would have ended…
    expect(refused.value.status).toBe(503);
    expect(refused.value.body.error.code).toBe('admin_read_timeout');
    expect(refused.value.body.error.message).toMatch(/ADMIN_READ_TIMEOUT \(1s\).*narrow the search/);
    expect(refused.ms).toBeGreaterThanOrEqual(950);
    expect(refused.ms).toBeLessThan(2500);
    // …and the next read is served at once (on SQLite by a fresh thread: the stopped one is still finishing its statement).
    expect(next.value.status).toBe(200);
    expect(next.value.body.items.map((item) => item.dedupeKey)).toEqual([`salesforce:${notificationId(1)}`]);
    expect(next.ms).toBeLessThan(1000);
  });
});
