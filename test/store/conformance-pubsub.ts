import { describe, expect, it } from 'vitest';

import { type InboundEvent, type NewJob, type PubSubCursorAdvance, PubSubLeaseLostError } from '../../src/store/types.ts';
import { claimAll, message, oneRemapPerEvent, type StoreHarness, T0, uniqueKey, useFixture } from './conformance-fixture.ts';

/*
 * The replay cursors of Salesforce Pub/Sub subscriptions: ids kept byte for byte, stored in the
 * same transaction as their events (never one without the other), moved by keepalives, and the
 * state, errors and resubscribes the admin reads.
 */

const ORG = '00D000000000001AAA';
const TOPIC = '/data/OpportunityChangeEvent';
// Ten bytes with a leading zero, a 0xff and a zero inside: a number or a string would change them.
const TEN_BYTES = Uint8Array.from([0x00, 0xff, 0x00, 0x01, 0x7f, 0x80, 0xfe, 0x00, 0x10, 0xff]);
const bytes = (...values: number[]) => Uint8Array.from(values);

const cursor = (replayId: Uint8Array, overrides: Partial<PubSubCursorAdvance> = {}): PubSubCursorAdvance => ({
  orgId: ORG,
  topic: TOPIC,
  replayId,
  commitTimestamp: T0 - 500,
  at: T0,
  ...overrides,
});

/** A Pub/Sub message: its events keyed as the subscriber keys them (the replay id in hex). */
const cdcMessage = (keys: string[], advance: PubSubCursorAdvance) => message(keys, { source: 'salesforce-pubsub', senderId: ORG, cursor: advance });

export function pubsubConformance(harness: StoreHarness): void {
  describe('salesforce pub/sub replay cursors', () => {
    const fixture = useFixture(harness);

    it('when events are ingested with a 10-byte replay id holding 0x00 and 0xff bytes, then the id reads back byte for byte, after a reopen too', async () => {
      const { store, reopen } = await fixture.fresh();
      const key = uniqueKey('cdc');

      const result = await store.ingest(cdcMessage([key], cursor(TEN_BYTES)), oneRemapPerEvent);

      expect(result.created.map((event) => event.dedupeKey)).toEqual([key]);
      const stored = await (await reopen()).pubsub.get(ORG, TOPIC);
      expect(stored?.replayId).toEqual(TEN_BYTES);
      expect(Buffer.from(stored!.replayId!).toString('hex')).toBe('00ff00017f80fe0010ff');
      expect(stored).toMatchObject({ commitTimestamp: T0 - 500, lastEventAt: T0, lastKeepaliveAt: null, state: 'subscribed', resubscribes: 0, updatedAt: T0 });
    });

    it('when the job factory throws, then neither the events nor the replay id are stored', async () => {
      const { store } = await fixture.fresh();
      const [a, b] = [uniqueKey('cdc'), uniqueKey('cdc')];
      const failing = (event: InboundEvent): NewJob[] => {
        if (event.dedupeKey === b) throw new Error('mapping exploded');
        return oneRemapPerEvent(event);
      };

      await expect(store.ingest(cdcMessage([a, b], cursor(TEN_BYTES)), failing)).rejects.toThrow('mapping exploded');

      expect(await store.pubsub.get(ORG, TOPIC)).toBeUndefined();
      expect(await store.nextDueAt()).toBeUndefined();
      const retried = await store.ingest(message([a, b]), () => []);
      expect(retried.duplicates).toEqual([]);
    });

    it('when the replay id cannot be stored (empty), then the events of the message are not stored either', async () => {
      const { store } = await fixture.fresh();
      await store.ingest(cdcMessage([uniqueKey('cdc')], cursor(bytes(1, 2, 3))), () => []);
      const key = uniqueKey('cdc');

      await expect(store.ingest(cdcMessage([key], cursor(new Uint8Array(0), { at: T0 + 1 })), oneRemapPerEvent)).rejects.toThrow('replay id');

      expect((await store.pubsub.get(ORG, TOPIC))?.replayId).toEqual(bytes(1, 2, 3));
      expect(await store.nextDueAt()).toBeUndefined();
      expect((await store.ingest(message([key]), () => [])).duplicates).toEqual([]);
    });

    it('when a redelivery brings events already stored, then they are duplicates with no new job, and the replay id still moves on', async () => {
      const { store } = await fixture.fresh();
      const [a, b] = [uniqueKey('cdc'), uniqueKey('cdc')];
      await store.ingest(cdcMessage([a], cursor(bytes(0, 0, 1))), oneRemapPerEvent);

      const again = await store.ingest(cdcMessage([a, b], cursor(bytes(0, 0, 2), { commitTimestamp: T0 + 10, at: T0 + 20 })), oneRemapPerEvent);

      expect(again.duplicates).toEqual([a]);
      expect(again.created.map((event) => event.dedupeKey)).toEqual([b]);
      expect((await claimAll(store, 'w', T0 + 1000)).map((job) => job.coalesceKey).sort()).toEqual([`meeting:${a}`, `meeting:${b}`].sort());
      expect(await store.pubsub.get(ORG, TOPIC)).toMatchObject({ replayId: bytes(0, 0, 2), commitTimestamp: T0 + 10, lastEventAt: T0 + 20 });
    });

    it('when an ingest advances the replay id with no commit time (none of its events could be read), then the stored commit time stays', async () => {
      const { store } = await fixture.fresh();
      await store.ingest(cdcMessage([uniqueKey('cdc')], cursor(bytes(0, 0, 1))), () => []);
      const { commitTimestamp: _none, ...advance } = cursor(bytes(0, 0, 2), { at: T0 + 20 });

      await store.ingest(cdcMessage([], advance), () => []);

      expect(await store.pubsub.get(ORG, TOPIC)).toMatchObject({ replayId: bytes(0, 0, 2), commitTimestamp: T0 - 500, lastEventAt: T0 + 20 });
    });

    it('when a keepalive is saved, then the replay id moves on and the last event and its commit time stay', async () => {
      const { store } = await fixture.fresh();
      await store.ingest(cdcMessage([uniqueKey('cdc')], cursor(bytes(9, 9))), () => []);

      await store.pubsub.saveKeepalive(ORG, TOPIC, TEN_BYTES, T0 + 270_000);

      expect(await store.pubsub.get(ORG, TOPIC)).toMatchObject({
        replayId: TEN_BYTES,
        commitTimestamp: T0 - 500,
        lastEventAt: T0,
        lastKeepaliveAt: T0 + 270_000,
        updatedAt: T0 + 270_000,
      });
    });

    it('when the lease is held by another instance, then an ingest naming this one stores neither the events nor the id, and rejects; held by this one, both are stored', async () => {
      // Arrange: instance b took the lease; a still streams a batch it received before.
      const { store } = await fixture.fresh();
      const lease = { name: `pubsub:${ORG}:${TOPIC}`, owner: 'instance-a' };
      await store.ingest(cdcMessage([uniqueKey('cdc')], cursor(bytes(1))), () => []);
      expect(await store.channels.tryLease(lease.name, 'instance-b', 20_000, T0)).toBe(true);
      const late = uniqueKey('cdc');

      // Act + Assert: nothing of a's is stored; once a holds the lease again, its ingest is.
      await expect(store.ingest(cdcMessage([late], cursor(bytes(2), { at: T0 + 1_000, lease })), oneRemapPerEvent)).rejects.toThrow(PubSubLeaseLostError);
      await expect(store.pubsub.saveKeepalive(ORG, TOPIC, bytes(3), T0 + 1_000, lease)).rejects.toThrow(PubSubLeaseLostError);
      expect((await store.pubsub.get(ORG, TOPIC))?.replayId).toEqual(bytes(1));
      expect(await store.nextDueAt()).toBeUndefined();
      expect(await store.channels.tryLease(lease.name, 'instance-a', 20_000, T0 + 30_000)).toBe(true);
      const stored = await store.ingest(cdcMessage([late], cursor(bytes(4), { at: T0 + 31_000, lease })), oneRemapPerEvent);
      await store.pubsub.saveKeepalive(ORG, TOPIC, bytes(5), T0 + 32_000, lease);
      expect(stored.created.map((event) => event.dedupeKey)).toEqual([late]);
      expect((await store.pubsub.get(ORG, TOPIC))?.replayId).toEqual(bytes(5));
    });

    it('when states are noted, then resubscribes are counted, the last error is kept with its time and the holder changes only when given', async () => {
      const { store } = await fixture.fresh();

      await store.pubsub.noteState(ORG, TOPIC, { state: 'subscribed', at: T0, holder: 'instance-a' });
      await store.pubsub.noteState(ORG, TOPIC, { state: 'resubscribing', error: 'service.unavailable', at: T0 + 1 });
      await store.pubsub.noteState(ORG, TOPIC, { state: 'resubscribing', at: T0 + 2 });
      await store.pubsub.noteState(ORG, TOPIC, { state: 'subscribed', at: T0 + 3 });

      expect(await store.pubsub.get(ORG, TOPIC)).toEqual({
        orgId: ORG,
        topic: TOPIC,
        replayId: null,
        commitTimestamp: null,
        lastEventAt: null,
        lastKeepaliveAt: null,
        lastError: 'service.unavailable',
        lastErrorAt: T0 + 1,
        resubscribes: 2,
        state: 'subscribed',
        holder: 'instance-a',
        updatedAt: T0 + 3,
      });
      await store.pubsub.noteState(ORG, TOPIC, { state: 'stopped', at: T0 + 4, holder: null });
      expect(await store.pubsub.get(ORG, TOPIC)).toMatchObject({ state: 'stopped', holder: null, resubscribes: 2 });
      await expect(store.pubsub.noteState(ORG, TOPIC, { state: 'lost' as never, at: T0 + 5 })).rejects.toThrow('unknown Pub/Sub state');
    });

    it('when several orgs and topics have cursors, then list answers them by org id, then topic', async () => {
      const { store } = await fixture.fresh();
      const [orgA, orgB] = ['00D00000000000AAAA', '00D00000000000BBBB'];

      await store.pubsub.saveKeepalive(orgB, '/data/LeadChangeEvent', bytes(1), T0);
      await store.pubsub.noteState(orgA, '/data/OpportunityChangeEvent', { state: 'backstop', at: T0 });
      await store.pubsub.saveKeepalive(orgA, '/data/EventChangeEvent', bytes(2), T0);
      await store.pubsub.saveKeepalive(orgB, '/data/ContactChangeEvent', bytes(3), T0);

      expect((await store.pubsub.list()).map((entry) => [entry.orgId, entry.topic, entry.state])).toEqual([
        [orgA, '/data/EventChangeEvent', 'subscribed'],
        [orgA, '/data/OpportunityChangeEvent', 'backstop'],
        [orgB, '/data/ContactChangeEvent', 'subscribed'],
        [orgB, '/data/LeadChangeEvent', 'subscribed'],
      ]);
    });
  });
}
