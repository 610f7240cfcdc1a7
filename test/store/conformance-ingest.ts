import { describe, expect, it } from 'vitest';

import type { InboundEvent, NewJob } from '../../src/store/types.ts';
import { claimAll, message, oneRemapPerEvent, type StoreHarness, T0, uniqueKey, useFixture } from './conformance-fixture.ts';

export function ingestConformance(harness: StoreHarness): void {
  describe('ingest and migrations', () => {
    const fixture = useFixture(harness);

    it('when the store is opened twice and migrate runs again, then migrations are idempotent and data survives', async () => {
      const { store, reopen } = await fixture.fresh();
      const key = uniqueKey('evt');
      const { created } = await store.ingest(message([key]), () => []);

      await store.migrate();
      const second = await reopen();
      await second.migrate();

      expect(await second.getEvent(created[0]!.id)).toMatchObject({ dedupeKey: key, state: 'received' });
    });

    it('when a message has new and already stored events, then only the new ones are stored and get jobs', async () => {
      const { store } = await fixture.fresh();
      const [a, b, c] = [uniqueKey('evt'), uniqueKey('evt'), uniqueKey('evt')];
      await store.ingest(message([a]), oneRemapPerEvent);
      const seen: string[] = [];

      const result = await store.ingest(message([a, b, c, b]), (event) => (seen.push(event.dedupeKey), oneRemapPerEvent(event)));

      expect(result.created.map((event) => event.dedupeKey)).toEqual([b, c]);
      expect(result.duplicates).toEqual([a, b]);
      expect(seen).toEqual([b, c]);
      const stored = await store.getEvent(result.created[0]!.id);
      expect(stored).toEqual({ ...result.created[0], parsedPayload: { key: b, fields: { Subject: 'Demo' } } });
      expect(stored).toMatchObject({ source: 'salesforce', senderId: '00D000000000001AAA', receivedAt: T0, state: 'received', stateReason: null });
      const jobs = await claimAll(store, 'w');
      expect(jobs.map((job) => job.coalesceKey).sort()).toEqual([`meeting:${a}`, `meeting:${b}`, `meeting:${c}`].sort());
      expect(jobs.find((job) => job.coalesceKey === `meeting:${b}`)?.eventId).toBe(result.created[0]!.id);
    });

    it('when jobsFor throws for one event, then nothing of the message is stored', async () => {
      const { store } = await fixture.fresh();
      const [a, b] = [uniqueKey('evt'), uniqueKey('evt')];
      const failing = (event: InboundEvent): NewJob[] => {
        if (event.dedupeKey === b) throw new Error('mapping exploded');
        return oneRemapPerEvent(event);
      };

      await expect(store.ingest(message([a, b]), failing)).rejects.toThrow('mapping exploded');

      expect(await store.nextDueAt()).toBeUndefined();
      const retried = await store.ingest(message([a, b]), oneRemapPerEvent);
      expect(retried.duplicates).toEqual([]);
      expect(retried.created).toHaveLength(2);
    });

    it('when 200 ingests run concurrently, then all resolve and every event and job is readable after reopening', async () => {
      const { store, reopen } = await fixture.fresh();
      const keys = Array.from({ length: 200 }, () => uniqueKey('burst'));

      const results = await Promise.all(keys.map((key) => store.ingest(message([key]), oneRemapPerEvent)));
      await store.close();
      const reopened = await reopen();

      const events = await Promise.all(results.map((result) => reopened.getEvent(result.created[0]!.id)));
      expect(events.map((event) => event?.dedupeKey)).toEqual(keys);
      const jobs = await reopened.claim({ owner: 'w', limit: 500, leaseMs: 60_000, now: T0 + 1 });
      expect(jobs).toHaveLength(200);
      expect(new Set(jobs.map((job) => job.eventId))).toEqual(new Set(results.map((result) => result.created[0]!.id)));
    });

    it('when one call in a concurrent batch fails, then only that call is rejected and rolled back', async () => {
      const { store } = await fixture.fresh();
      const [good, bad, other] = [uniqueKey('evt'), uniqueKey('evt'), uniqueKey('evt')];

      const outcomes = await Promise.allSettled([
        store.ingest(message([good]), oneRemapPerEvent),
        store.ingest(message([bad]), () => {
          throw new Error('bad mapping');
        }),
        store.enqueue([{ kind: 'import', payload: {}, runAt: T0, coalesceKey: other }]),
      ]);

      expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      const jobs = await claimAll(store, 'w');
      expect(jobs.map((job) => job.coalesceKey).sort()).toEqual([`meeting:${good}`, other].sort());
      const again = await store.ingest(message([bad]), () => []);
      expect(again.duplicates).toEqual([]);
    });
  });
}
