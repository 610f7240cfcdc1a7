import { expect, it } from 'vitest';

import { DAY_MS, runRetentionPass } from '../../src/retention/retention-pass.ts';
import { ADMIN_KEY, startSalesforceBridge } from '../bridge/support/salesforce-bridge.ts';
import { startFakeMomentum } from '../fakes/fake-momentum.ts';
import { eventNotification, outboundMessage } from '../salesforce/support/outbound-message-builder.ts';
import { postOutboundMessage } from '../salesforce/support/post-outbound-message.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { describeEachEngine, queryRows, waitSettled } from '../support/stored-state.ts';
import { danglingReferences } from './support/references.ts';

/*
 * Retention under a running bridge: three changes of one Salesforce Event delivered, then a pass
 * past their cutoff. The older deliveries are gone; the last one, its meeting's page and its
 * event still answer on the admin API with everything they show.
 */

const cleanups = cleanupAfterEach();

const admin = (url: string, path: string) => fetch(`${url}${path}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });

describeEachEngine('retention through startBridge', (engine) => {
  it("when a meeting's older deliveries are removed, then its last delivery, its event and its meeting page still answer in full", async () => {
    // Arrange: three changes of one Event, each delivered before the next.
    const momentum = await startFakeMomentum();
    cleanups.push(momentum.close);
    const bridge = await startSalesforceBridge(momentum, { engine });
    cleanups.push(bridge.stop);
    for (const n of [1, 2, 3]) {
      const change = eventNotification(1, { Subject: `Pricing review ${n}`, WhatId: '0068d0000101XyZAAU' });
      const ack = await postOutboundMessage(bridge.url, outboundMessage({ notifications: [{ ...change, id: `04l8d0000${n}00XyZAAU` }] }));
      expect(ack.status).toBe(200);
      await momentum.waitFor(n);
      await waitSettled(bridge.databaseUrl);
    }
    const remaps = (await queryRows(bridge.databaseUrl, `SELECT id, event_id FROM jobs WHERE kind = 'remap' ORDER BY id`)).map((row) => ({
      id: Number(row.id),
      eventId: Number(row.event_id),
    }));
    const [meeting] = await queryRows(bridge.databaseUrl, `SELECT DISTINCT serial_key FROM jobs WHERE kind = 'map-event'`);
    const before = await (await admin(bridge.url, `/admin/deliveries/${remaps[2]!.id}`)).json();
    const cutoff = Date.now() + 1;

    // Act: a pass a day after, with RETENTION_DAYS=1, on the bridge's database.
    const store = await bridge.store();
    const pass = await runRetentionPass({ store: store.retention, now: cutoff + DAY_MS, days: 1, rematchDays: 30, previous: undefined, pauseMs: 0 });

    // Assert: the two older changes went, each with its message, its two jobs and their attempts, its delivery row.
    expect(remaps).toHaveLength(3);
    expect(pass.removed).toMatchObject({ events: 2, messages: 2, jobs: 4, attempts: 4, deliveredMeetings: 2 });
    expect((await admin(bridge.url, `/admin/deliveries/${remaps[0]!.id}`)).status).toBe(404);
    // The last delivery's page is what it was: the delivery, its attempt, its event, its match, its read-back.
    const last = await admin(bridge.url, `/admin/deliveries/${remaps[2]!.id}`);
    expect(last.status).toBe(200);
    expect(await last.json()).toEqual(before);
    expect(before).toMatchObject({ delivery: { state: 'succeeded' }, event: { id: remaps[2]!.eventId }, attempts: [{ status: 200 }] });
    expect((await admin(bridge.url, `/admin/events/${remaps[2]!.eventId}`)).status).toBe(200);
    const page = await admin(bridge.url, `/admin/meetings/${encodeURIComponent(String(meeting!.serial_key))}`);
    expect(page.status).toBe(200);
    const body = (await page.json()) as { events: Array<{ id: number }>; deliveries: Array<{ id: number }> };
    expect(body.events.map((event) => event.id)).toEqual([remaps[2]!.eventId]);
    // The stats say what the pass removed and what is left, from counters the deletions kept right.
    const stats = (await (await admin(bridge.url, '/admin/stats')).json()) as { retention: unknown; stored: unknown };
    expect(stats.retention).toMatchObject({ removed: { events: 2, messages: 2 } });
    expect(stats.stored).toMatchObject({ inboundEvents: 1, inboundMessages: 1 });
    expect(body.deliveries.map((delivery) => delivery.id)).toEqual([remaps[2]!.id]);
    expect(await danglingReferences(bridge.databaseUrl)).toEqual([]);
  });
});
