import { setTimeout as sleep } from 'node:timers/promises';

import { describe, expect, it } from 'vitest';

import type { Job, Store } from '../../src/store/types.ts';
import { claimAll, job, message, type StoreHarness, T0, uniqueKey, useFixture } from './conformance-fixture.ts';

const DAY_MS = 86_400_000;

/** Claims `created` and finishes it with `state` (a dead, skipped… job as the worker leaves it). */
async function finishAs(store: Store, created: Job, outcome: Parameters<Store['finish']>[0]['outcome']) {
  await store.claim({ owner: `w-${created.id}`, limit: 100, leaseMs: 60_000, now: Date.now() + 1000 });
  expect(await store.finish({ jobId: created.id, leaseOwner: `w-${created.id}`, outcome })).toBe(true);
}

const ids = (jobs: Job[]) => jobs.map((listed) => listed.id);

export function readConformance(harness: StoreHarness): void {
  describe('read models: stats, listings, messages, cancel', () => {
    const fixture = useFixture(harness);

    it('when jobs of several kinds and states exist, then stats count them, age the oldest pending and count dead in the last 24 h', async () => {
      const { store } = await fixture.fresh();
      // The dead job is made first, alone in the queue, so claiming it claims nothing else.
      const [dead] = await store.enqueue([job({ kind: 'map-event' })]);
      await finishAs(store, dead!, { state: 'dead', reason: 'no mapper' });
      const [oldRemap] = await store.enqueue([job({ kind: 'remap' })]);
      await sleep(3);
      const [, , unwanted] = await store.enqueue([job({ kind: 'remap' }), job({ kind: 'import' }), job({ kind: 'import' })]);
      await store.cancelJob(unwanted!.id, 'not needed');
      const now = Date.now();

      const stats = await store.stats(now);
      const later = await store.stats(now + DAY_MS + 60_000);

      expect(stats.at).toBe(now);
      expect(stats.counts).toEqual([
        { kind: 'import', state: 'cancelled', count: 1 },
        { kind: 'import', state: 'pending', count: 1 },
        { kind: 'map-event', state: 'dead', count: 1 },
        { kind: 'remap', state: 'pending', count: 2 },
      ]);
      expect(stats.oldestPending.map((entry) => entry.kind)).toEqual(['import', 'remap']);
      const remapOldest = stats.oldestPending.find((entry) => entry.kind === 'remap');
      expect(remapOldest).toEqual({ kind: 'remap', createdAt: oldRemap!.createdAt, ageMs: now - oldRemap!.createdAt });
      expect(stats.deadLast24h).toEqual([{ kind: 'map-event', count: 1 }]);
      expect(later.deadLast24h).toEqual([]);
      expect(later.counts).toEqual(stats.counts);
    });

    it('when the store is empty, then stats have no counts and nothing pending', async () => {
      const { store } = await fixture.fresh();

      expect(await store.stats(T0)).toEqual({
        at: T0,
        counts: [],
        oldestPending: [],
        deadLast24h: [],
        pendingByPriority: [],
        stored: { inboundMessages: 0, inboundEvents: 0, jobs: 0, attempts: 0, oldestEventAt: null, oldestJobAt: null },
      });
    });

    it('when jobs are listed page by page, then they come newest first, each exactly once, and a row added meanwhile never shifts a page', async () => {
      const { store } = await fixture.fresh();
      const created = await store.enqueue(Array.from({ length: 7 }, () => job()));

      const first = await store.listJobs({ limit: 3 });
      await store.enqueue([job()]);
      const second = await store.listJobs({ limit: 3, after: { at: first[2]!.createdAt, id: first[2]!.id } });
      const third = await store.listJobs({ limit: 3, after: { at: second[2]!.createdAt, id: second[2]!.id } });
      const oldest = await store.listJobs({ limit: 10, order: 'oldest', after: { at: created[1]!.createdAt, id: created[1]!.id } });

      const newestFirst = ids(created).reverse();
      expect([...ids(first), ...ids(second), ...ids(third)]).toEqual(newestFirst);
      expect(ids(oldest)).toEqual(
        ids(created)
          .slice(2)
          .concat(ids(await store.listJobs({ limit: 1 }))),
      );
      expect(first[0]).toEqual(await store.getJob(first[0]!.id));
    });

    it('when jobs are filtered by kind, state, key, event, replay and creation time, then only matching jobs are listed and counted', async () => {
      const { store } = await fixture.fresh();
      const {
        created: [event],
      } = await store.ingest(message([uniqueKey('evt')]), () => []);
      const [early] = await store.enqueue([job({ kind: 'import' })]);
      await sleep(3);
      const [keyed, fromEvent, other] = await store.enqueue([
        job({ kind: 'remap', coalesceKey: 'source:GOOGLE_CALENDAR:abc' }),
        job({ kind: 'remap', eventId: event!.id, coalesceKey: 'source:GOOGLE_CALENDAR:def' }),
        job({ kind: 'map-event' }),
      ]);
      const [replay] = await store.enqueue([job({ kind: 'remap', replayOf: keyed!.id })]);
      await store.cancelJob(other!.id, 'not needed');

      expect(ids(await store.listJobs({ kinds: ['remap', 'import'], limit: 50 }))).toEqual([replay!.id, fromEvent!.id, keyed!.id, early!.id]);
      expect(ids(await store.listJobs({ states: ['cancelled'], limit: 50 }))).toEqual([other!.id]);
      expect(ids(await store.listJobs({ coalesceKey: 'source:GOOGLE_CALENDAR:abc', limit: 50 }))).toEqual([keyed!.id]);
      expect(ids(await store.listJobs({ eventId: event!.id, limit: 50 }))).toEqual([fromEvent!.id]);
      expect(ids(await store.listJobs({ replayOf: keyed!.id, limit: 50 }))).toEqual([replay!.id]);
      expect(ids(await store.listJobs({ createdSince: keyed!.createdAt, kinds: ['import'], limit: 50 }))).toEqual([]);
      expect(ids(await store.listJobs({ createdUntil: keyed!.createdAt, limit: 50 }))).toEqual([early!.id]);
      expect(ids(await store.listJobs({ kinds: [], limit: 50 }))).toEqual([]);
      expect(await store.countJobs({ kinds: ['remap'] })).toBe(3);
      expect(await store.countJobs({ kinds: ['remap'], notReplayed: true })).toBe(2);
      expect(ids(await store.listJobs({ kinds: ['remap'], notReplayed: true, limit: 50 }))).toEqual([replay!.id, fromEvent!.id]);
      expect(await store.countJobs({})).toBe(5);
    });

    it('when jobs are filtered by text in their payload, then the match is exact and case-sensitive, with no wildcards', async () => {
      const { store } = await fixture.fresh();
      const [upper, lower, underscore] = await store.enqueue([
        job({ payload: { request: { salesforceRecords: { opportunityId: '0065w000023STAmAAO' } } } }),
        job({ payload: { request: { salesforceRecords: { opportunityId: '0065w000023stamAAO' } } } }),
        job({ payload: { note: '0065w_00023STAm' } }),
      ]);

      expect(ids(await store.listJobs({ payloadContains: '0065w000023STAm', limit: 50 }))).toEqual([upper!.id]);
      expect(ids(await store.listJobs({ payloadContains: '0065w000023stam', limit: 50 }))).toEqual([lower!.id]);
      expect(await store.countJobs({ payloadContains: '0065w%' })).toBe(0);
      expect(ids(await store.listJobs({ payloadContains: '0065w_00023STAm', limit: 50 }))).toEqual([underscore!.id]);
    });

    it('when jobs are searched in chosen payload fields, then the text matches inside any of them, ASCII letters in either case and every other character exactly', async () => {
      const { store } = await fixture.fresh();
      const [remap, imported] = await store.enqueue([
        job({
          payload: {
            request: {
              source: { id: 'abc-123', type: 'GOOGLE_CALENDAR' },
              meetingDetails: { title: 'Pricing Review' },
              salesforceRecords: { opportunityId: '0065w000023STAmAAO' },
            },
          },
        }),
        job({ kind: 'import', payload: { request: { meeting: { id: 'zoom-9', title: 'Café Éclair 50%', salesforceAccountId: '0015w00002XyZaBAAV' } } } }),
        job({ payload: { request: { note: 'pricing review' }, flags: { triggerSummary: true } } }),
      ]);
      const fields = [
        [['request', 'meetingDetails', 'title']],
        [['request', 'meeting', 'title']],
        [
          ['request', 'source', 'type'],
          ['request', 'source', 'id'],
        ],
        [['request', 'meeting', 'id']],
        [['request', 'salesforceRecords', 'opportunityId']],
        [['request', 'meeting', 'salesforceAccountId']],
      ];
      const found = async (text: string) => ids(await store.listJobs({ payloadSearch: { text, fields }, order: 'oldest', limit: 50 }));

      expect(await found('pricing REVIEW')).toEqual([remap!.id]);
      expect(await found('google_calendar:ABC-1')).toEqual([remap!.id]);
      expect(await found('stam')).toEqual([remap!.id]);
      expect(await found('XYZAB')).toEqual([imported!.id]);
      expect(await found('ZOOM-9')).toEqual([imported!.id]);
      expect(await found('café')).toEqual([imported!.id]);
      expect(await found('Éclair')).toEqual([imported!.id]);
      expect(await found('éclair')).toEqual([]);
      expect(await found('CAFÉ')).toEqual([]);
      expect(await found('50%')).toEqual([imported!.id]);
      expect(await found('5%')).toEqual([]);
      expect(await found('g_cal')).toEqual([]);
      expect(await found('true')).toEqual([]);
      expect(await found('review')).toEqual([remap!.id]);
      expect(await store.countJobs({ payloadSearch: { text: 'a', fields }, kinds: ['import'] })).toBe(1);
      expect(await store.countJobs({ payloadSearch: { text: 'a', fields: [] } })).toBe(0);
    });

    it('when events are listed, then they come newest first by reception, filtered by source, state and time, with the raw message readable', async () => {
      const { store } = await fixture.fresh();
      const first = await store.ingest(message([uniqueKey('a'), uniqueKey('b')], { receivedAt: T0 }), () => []);
      const google = await store.ingest(
        message([uniqueKey('g')], { source: 'google', receivedAt: T0 + 10, rawPayload: '{"x-goog-resource-state":"exists"}' }),
        () => [],
      );
      const late = await store.ingest(message([uniqueKey('c')], { receivedAt: T0 + 20 }), () => []);
      const [a, b] = first.created;

      const all = await store.listEvents({ limit: 50 });
      const page1 = await store.listEvents({ limit: 2 });
      const page2 = await store.listEvents({ limit: 2, after: { at: page1[1]!.receivedAt, id: page1[1]!.id } });

      expect(all.map((event) => event.id)).toEqual([late.created[0]!.id, google.created[0]!.id, b!.id, a!.id]);
      expect([...page1, ...page2]).toEqual(all);
      expect((await store.listEvents({ sources: ['google'], limit: 50 })).map((event) => event.id)).toEqual([google.created[0]!.id]);
      expect((await store.listEvents({ receivedSince: T0 + 10, receivedUntil: T0 + 20, limit: 50 })).map((event) => event.id)).toEqual([google.created[0]!.id]);
      expect(await store.listEvents({ states: ['mapped'], limit: 50 })).toEqual([]);
      expect(await store.getMessage(google.created[0]!.messageId)).toEqual({
        id: google.created[0]!.messageId,
        source: 'google',
        senderId: '00D000000000001AAA',
        rawPayload: '{"x-goog-resource-state":"exists"}',
        receivedAt: T0 + 10,
      });
      expect(await store.getMessage(999_999)).toBeUndefined();
    });

    it('when a pending job is cancelled, then it ends cancelled with the reason and is never claimed; other states are left alone', async () => {
      const { store } = await fixture.fresh();
      const [pending, running] = await store.enqueue([job({ coalesceKey: uniqueKey('k') }), job({ runAt: T0 - 1 })]);
      await store.claim({ owner: 'w', limit: 1, leaseMs: 60_000, now: T0 });

      const cancelled = await store.cancelJob(pending!.id, 'cancelled by operator abcd1234', T0 + 5);
      const again = await store.cancelJob(pending!.id, 'twice', T0 + 6);
      const notPending = await store.cancelJob(running!.id, 'too late', T0 + 7);

      expect(cancelled).toMatchObject({ id: pending!.id, state: 'cancelled', lastError: 'cancelled by operator abcd1234', updatedAt: T0 + 5 });
      expect(await store.getJob(pending!.id)).toEqual(cancelled);
      expect(again).toBeUndefined();
      expect(notPending).toBeUndefined();
      expect(await store.getJob(running!.id)).toMatchObject({ state: 'running', leaseOwner: 'w' });
      expect(await store.cancelJob(999_999, 'unknown')).toBeUndefined();
      expect(await claimAll(store, 'w2')).toEqual([]);
    });
  });
}
