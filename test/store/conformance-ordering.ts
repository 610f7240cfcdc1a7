import { describe, expect, it } from 'vitest';

import type { Store } from '../../src/store/types.ts';
import { job, type StoreHarness, T0, uniqueKey, useFixture } from './conformance-fixture.ts';

export function orderingConformance(harness: StoreHarness): void {
  describe('serial keys and meeting order', () => {
    const fixture = useFixture(harness);

    it('when two jobs share a serial key, then they never run at the same time, yet neither replaces the other', async () => {
      const { store } = await fixture.fresh();
      const serialKey = uniqueKey('record');
      const [first, second] = await store.enqueue([job({ kind: 'map-event', serialKey }), job({ kind: 'map-event', serialKey })]);

      const together = await store.claim({ owner: 'w1', limit: 10, leaseMs: 60_000, now: T0 + 1000 });
      const whileRunning = await store.claim({ owner: 'w2', limit: 10, leaseMs: 60_000, now: T0 + 1000 });
      await store.finish({ jobId: first!.id, leaseOwner: 'w1', outcome: { state: 'succeeded' } });
      const afterFinish = await store.claim({ owner: 'w2', limit: 10, leaseMs: 60_000, now: T0 + 1000 });

      expect(together.map((claimed) => claimed.id)).toEqual([first!.id]);
      expect(whileRunning).toEqual([]);
      expect(afterFinish.map((claimed) => claimed.id)).toEqual([second!.id]);
    });

    it('when a remap made from an older state is enqueued after one made from a newer state, then it is stored superseded as stale and the newer one stays pending', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('meeting');
      const events = await ingestEvents(store, 2);
      const [newer] = await store.enqueue([job({ coalesceKey: key, eventId: events[1]!, sourceVersion: T0 + 2000 })]);

      const [older] = await store.enqueue([job({ coalesceKey: key, eventId: events[0]!, sourceVersion: T0 + 1000 })]);

      expect(older).toMatchObject({ state: 'superseded', supersededBy: newer!.id });
      expect((await store.getJob(older!.id))?.lastError).toMatch(/^stale: made from an older state/);
      expect(await store.getJob(newer!.id)).toMatchObject({ state: 'pending' });
    });

    it('when the source versions say the later-received state is older, then the source wins over the order of receipt', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('meeting');
      const events = await ingestEvents(store, 2);
      const [changedLater] = await store.enqueue([job({ coalesceKey: key, eventId: events[0]!, sourceVersion: T0 + 5000 })]);

      const [receivedLater] = await store.enqueue([job({ coalesceKey: key, eventId: events[1]!, sourceVersion: T0 + 1000 })]);

      expect(receivedLater).toMatchObject({ state: 'superseded', supersededBy: changedLater!.id });
      expect(await store.getJob(changedLater!.id)).toMatchObject({ state: 'pending' });
    });

    it('when the newer state was already sent, then an older one arriving afterwards is never sent', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('meeting');
      const events = await ingestEvents(store, 2);
      const [newer] = await store.enqueue([job({ coalesceKey: key, eventId: events[1]! })]);
      await store.claim({ owner: 'w1', limit: 10, leaseMs: 60_000, now: T0 + 1000 });
      await store.finish({ jobId: newer!.id, leaseOwner: 'w1', outcome: { state: 'succeeded' } });

      const [older] = await store.enqueue([job({ coalesceKey: key, eventId: events[0]! })]);
      const claimed = await store.claim({ owner: 'w1', limit: 10, leaseMs: 60_000, now: T0 + 1000 });

      expect(older).toMatchObject({ state: 'superseded', supersededBy: newer!.id });
      expect(claimed).toEqual([]);
    });

    it('when a replay of an old delivery is enqueued, then it is not held back by the meeting order', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('meeting');
      const events = await ingestEvents(store, 2);
      const [older] = await store.enqueue([job({ coalesceKey: key, eventId: events[0]! })]);
      await store.enqueue([job({ coalesceKey: key, eventId: events[1]! })]);

      const [replay] = await store.enqueue([job({ coalesceKey: key, eventId: events[0]!, replayOf: older!.id })]);

      expect(replay).toMatchObject({ state: 'pending' });
    });
  });
}

/** Inbound events to hang jobs on (meeting order needs real event ids), in receipt order. */
async function ingestEvents(store: Store, count: number): Promise<number[]> {
  const keys = Array.from({ length: count }, () => uniqueKey('event'));
  const ids: number[] = [];
  for (const dedupeKey of keys) {
    const { created } = await store.ingest({ source: 'test', rawPayload: dedupeKey, receivedAt: T0, events: [{ dedupeKey, parsedPayload: {} }] }, () => []);
    ids.push(created[0]!.id);
  }
  return ids;
}
