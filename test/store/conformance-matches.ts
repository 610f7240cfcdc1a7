import { describe, expect, it } from 'vitest';

import type { InboundEvent, Store } from '../../src/store/types.ts';
import { message, type StoreHarness, T0, uniqueKey, useFixture } from './conformance-fixture.ts';

/*
 * Match records and pins, and the read models built on them: a meeting's events and deliveries (by
 * the serial key of their map-event jobs), the match queue, and listings filtered by match outcome.
 */

/** Stores one event of `meetingKey` with its map-event job, as a receiver does. */
async function receive(store: Store, meetingKey: string): Promise<InboundEvent> {
  const stored = await store.ingest(message([uniqueKey('evt')], { source: 'calendar' }), (event) => [
    { kind: 'map-event', payload: { eventId: event.id }, serialKey: meetingKey, runAt: T0 },
  ]);
  return stored.created[0]!;
}

/** Runs the event's pending map-event job as the handler would: its match record stored beside the remap it enqueues. */
async function map(store: Store, event: InboundEvent, meetingKey: string, outcome: string): Promise<void> {
  const owner = uniqueKey('w');
  const claimed = await store.claim({ owner, limit: 100, leaseMs: 60_000, now: Date.now() + 1000 });
  const mapJob = claimed.find((job) => job.kind === 'map-event' && job.eventId === event.id);
  for (const other of claimed.filter((job) => job !== mapJob)) await store.finish({ jobId: other.id, leaseOwner: owner, outcome: { state: 'succeeded' } });
  const matchRecord = { eventId: event.id, meetingKey, outcome, rule: outcome, summary: `${outcome} for ${event.id}`, record: { outcome, candidates: [] } };
  const remap = { kind: 'remap', payload: { eventId: event.id }, eventId: event.id, coalesceKey: `remap:${meetingKey}`, runAt: T0 };
  expect(await store.finish({ jobId: mapJob!.id, leaseOwner: owner, outcome: { state: 'succeeded' }, enqueue: [remap], matchRecord })).toBe(true);
}

export function matchConformance(harness: StoreHarness): void {
  describe('match records, pins, and the meeting read models', () => {
    const fixture = useFixture(harness);

    it('when map-event jobs store match records, then matchFor, meetingMatches and the queue of newest outcomes read them back', async () => {
      const { store } = await fixture.fresh();
      const [tied, settled, other] = [uniqueKey('calendar:tied'), uniqueKey('calendar:settled'), uniqueKey('calendar:other')];
      const first = await receive(store, settled);
      await map(store, first, settled, 'ambiguous');
      const second = await receive(store, settled);
      await map(store, second, settled, 'pinned');
      const third = await receive(store, tied);
      await map(store, third, tied, 'ambiguous');
      const fourth = await receive(store, other);
      await map(store, fourth, other, 'ambiguous');

      const queue = await store.matches.latestByOutcome('ambiguous', 10);
      const page = await store.matches.latestByOutcome('ambiguous', 1, queue[0]!.id);
      const meeting = await store.matches.meetingMatches(settled, 10);
      const atFirst = await store.matches.matchFor(first.id, meeting[1]!.createdAt);

      // The settled meeting's newest record is pinned: it has left the ambiguous queue.
      expect(queue.map((row) => row.meetingKey)).toEqual([other, tied]);
      expect(page.map((row) => row.meetingKey)).toEqual([tied]);
      expect(meeting.map((row) => [row.eventId, row.outcome])).toEqual([
        [second.id, 'pinned'],
        [first.id, 'ambiguous'],
      ]);
      expect(meeting[0]).toMatchObject({ summary: `pinned for ${second.id}`, record: { outcome: 'pinned', candidates: [] }, mapJobId: expect.any(Number) });
      expect(atFirst?.outcome).toBe('ambiguous');
      expect(await store.matches.matchFor(first.id, meeting[1]!.createdAt - 1)).toBeUndefined();
      expect(await store.matches.latestByOutcome('pinned', 10)).toEqual([meeting[0]]);
    });

    it('when a meeting has several events, then its events and their deliveries are found by its key, and by match outcome', async () => {
      const { store } = await fixture.fresh();
      const [key, elsewhere] = [uniqueKey('calendar:meeting'), uniqueKey('calendar:elsewhere')];
      const first = await receive(store, key);
      await map(store, first, key, 'ambiguous');
      const second = await receive(store, key);
      await map(store, second, key, 'pinned');
      const unrelated = await receive(store, elsewhere);
      await map(store, unrelated, elsewhere, 'ambiguous');
      const unmapped = await receive(store, key);

      const events = await store.listEvents({ meetingKey: key, limit: 10 });
      const deliveries = await store.listJobs({ kinds: ['remap'], meetingKey: key, limit: 10 });
      const ambiguousEvents = await store.listEvents({ matchOutcome: 'ambiguous', limit: 10 });
      const pinnedDeliveries = await store.listJobs({ kinds: ['remap'], matchOutcome: 'pinned', limit: 10 });
      const ambiguousDeliveries = await store.listJobs({ kinds: ['remap'], matchOutcome: 'ambiguous', meetingKey: key, limit: 10 });

      expect(events.map((event) => event.id)).toEqual([unmapped.id, second.id, first.id]);
      expect(deliveries.map((job) => job.eventId)).toEqual([second.id, first.id]);
      expect(ambiguousEvents.map((event) => event.id)).toEqual([unrelated.id, first.id]);
      expect(pinnedDeliveries.map((job) => job.eventId)).toEqual([second.id]);
      expect(ambiguousDeliveries.map((job) => job.eventId)).toEqual([first.id]);
      expect(await store.countJobs({ kinds: ['remap'], matchOutcome: 'none' })).toBe(0);
      expect(await store.listEvents({ meetingKey: uniqueKey('calendar:unknown'), limit: 10 })).toEqual([]);
    });

    it('when a pin is set, replaced and cleared, then it reads back as last set, and clearing twice says there was none', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('calendar:pinned');
      const pin = { meetingKey: key, records: { opportunityId: '0068d0000101XyZAAU' }, pinnedBy: 'admin key 0a1b2c3d', reason: 'the renewal', pinnedAt: T0 };

      await store.matches.setPin(pin);
      await store.matches.setPin({ ...pin, records: { accountId: '0018d0000101XyZAAU' }, reason: 'the account only', pinnedAt: T0 + 1 });
      const read = await store.matches.getPin(key);
      const cleared = [await store.matches.clearPin(key), await store.matches.clearPin(key)];

      expect(read).toEqual({ ...pin, records: { accountId: '0018d0000101XyZAAU' }, reason: 'the account only', pinnedAt: T0 + 1 });
      expect(cleared).toEqual([true, false]);
      expect(await store.matches.getPin(key)).toBeUndefined();
    });
  });
}
