import { expect, it } from 'vitest';

import { jobStates } from '../bridge/support/stored-jobs.ts';
import { sfId } from '../calendar/support/directory-setup.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { describeEachEngine, expectSettled, waitSettled } from '../support/stored-state.ts';
import { ANA, calendarWorld, startClocked } from './support/calendar-world.ts';
import { meetingEvent } from './support/google-setup.ts';
import { activeChannelIds, fakeTokenPosition, storedCalendars, storedChannels } from './support/google-state.ts';

/*
 * Push channels over their life, on each engine: renewed before they expire, the old one stopped
 * at Google, and the stored channel still in use after a restart. The clocked bridge moves time
 * forward (clocked-calendar-bridge.ts says why it is not startBridge).
 */

const HOUR_MS = 3_600_000;

const cleanups = cleanupAfterEach();

describeEachEngine('Google push channels end to end', (engine) => {
  it('when a channel is due for renewal, then a new one replaces it and the old is stored renewed and stopped, and after a restart the stored channel keeps working', async () => {
    // Arrange: a channel made at start-up, its clock then moved to 85 % of its one-hour life.
    const w = await calendarWorld(engine, cleanups);
    const clock = { offset: 0 };
    const now = () => Date.now() + clock.offset;
    const bridge = await startClocked(w, { now });
    const [first] = await activeChannelIds(w.database.url);

    // Act: renewal, a restart on the same address, then a change pushed on the renewed channel.
    clock.offset = 0.85 * HOUR_MS;
    await bridge.scheduler.runOnce({ backstop: false });
    const [second] = await activeChannelIds(w.database.url);
    await bridge.stop();
    w.bridges.splice(0);
    const watchesBeforeRestart = w.google.requestsOf('watch').length;
    await startClocked(w, { now, port: Number(new URL(bridge.url).port) });
    w.google.upsertEvent(ANA, meetingEvent('evt-after-restart', 8, { extendedProperties: { private: { sfLeadId: sfId('00Q', 3) } } }));

    // Assert: the old channel is stopped at Google and refused, the new one stored and used…
    expect(second).not.toBe(first);
    expect(w.google.channels.get(first!)?.stopped).toBe(true);
    expect(await w.google.push(first!, 'exists')).toBe(404);
    expect(w.google.requestsOf('watch')).toHaveLength(watchesBeforeRestart);
    const [old, renewed] = await storedChannels(w.database.url);
    expect(old).toMatchObject({ id: first, calendarId: ANA, renewedAt: expect.any(Number), stoppedAt: expect.any(Number) });
    expect(renewed).toMatchObject({ id: second, calendarId: ANA, resourceId: w.google.channels.get(second!)?.resourceId, renewedAt: null, stoppedAt: null });
    expect(renewed!.expiration).toBeGreaterThan(now());
    expect(await activeChannelIds(w.database.url)).toEqual([second]);
    // …and a push on it brings the change to Momentum, its sync token stored and nothing left over.
    expect(await w.google.push(second!, 'exists')).toBe(200);
    const sent = await w.momentum.waitFor(1);
    await waitSettled(w.database.url);
    expect(sent[0]?.body).toMatchObject({ source: { id: 'evt-after-restart' }, salesforceRecords: { leadId: sfId('00Q', 3) } });
    const [calendar] = await storedCalendars(w.database.url);
    expect(fakeTokenPosition(calendar!.syncToken)).toEqual({ calendarId: ANA, changes: 1, epoch: 0 });
    await expectSettled(w.database.url);
    expect((await jobStates(w.database.url)).filter((job) => !job.startsWith('calendar-sync:'))).toEqual(['map-event:succeeded', 'remap:succeeded']);
  });
});
