import { describe, expect, it } from 'vitest';

import type { NewDeliveredMeeting, Store } from '../../src/store/types.ts';
import { type StoreHarness, T0, uniqueKey, useFixture } from './conformance-fixture.ts';

/*
 * Delivered meetings: the row a delivery Momentum accepted leaves with its success (in the same
 * transaction), and what the read-back and the reconcile read of them.
 */

const WINDOW = Date.parse('2026-03-02T16:00:00.000Z');

/** Enqueues, claims and finishes one remap as its handler would on success, leaving `delivered`. */
async function deliver(store: Store, delivered: Omit<NewDeliveredMeeting, 'kind'>): Promise<number> {
  const owner = uniqueKey('w');
  const [job] = await store.enqueue([{ kind: 'remap', payload: {}, coalesceKey: delivered.meetingKey, runAt: T0 }]);
  await store.claim({ owner, limit: 100, leaseMs: 60_000, now: Date.now() + 1000 });
  expect(await store.finish({ jobId: job!.id, leaseOwner: owner, outcome: { state: 'succeeded' }, delivered: { kind: 'remap', ...delivered } })).toBe(true);
  return job!.id;
}

const meeting = (key: string, dueAt: number, extra: Partial<NewDeliveredMeeting> = {}): Omit<NewDeliveredMeeting, 'kind'> => ({
  meetingKey: key,
  startsAt: WINDOW + 10 * 60_000,
  title: 'Pricing review',
  host: 'ana.rep@example.com',
  sent: { opportunityId: '0068d0000101XyZAAU' },
  readback: { windowStart: WINDOW, dueAt },
  ...extra,
});

export function deliveredConformance(harness: StoreHarness): void {
  describe('delivered meetings and their read-back', () => {
    const fixture = useFixture(harness);

    it('when deliveries of a window fall due, then only the due ones are read, a newer delivery of a meeting supersedes the older, and the next due time is known', async () => {
      const { store } = await fixture.fresh();
      const [a, b] = [uniqueKey('meeting:a'), uniqueKey('meeting:b')];
      const older = await deliver(store, meeting(a, T0 + 1));
      const newer = await deliver(store, meeting(a, T0 + 2));
      const due = await deliver(store, meeting(b, T0 + 3));
      const later = await deliver(store, meeting(uniqueKey('meeting:c'), T0 + 9_000));
      await deliver(store, meeting(uniqueKey('meeting:other-window'), T0, { readback: { windowStart: WINDOW + 3_600_000, dueAt: T0 } }));

      await store.delivered.supersedeOlder(WINDOW, T0 + 5);
      const read = await store.delivered.dueForReadback(WINDOW, T0 + 5, 10);

      expect(read.map((row) => row.jobId)).toEqual([newer, due]);
      expect(read[0]).toMatchObject({
        kind: 'remap',
        meetingKey: a,
        startsAt: WINDOW + 600_000,
        host: 'ana.rep@example.com',
        readbackOutcome: null,
        held: null,
      });
      expect((await store.delivered.forJobs([older]))[0]).toMatchObject({ readbackOutcome: 'superseded', checkedAt: T0 + 5 });
      await store.delivered.settleReadbacks(
        [
          { jobId: newer, outcome: 'not_applied', held: { momentumMeetingId: '7', opportunityId: '0068d0000202XyZAAU' } },
          { jobId: due, outcome: 'confirmed' },
        ],
        T0 + 6,
      );
      expect(await store.delivered.nextReadbackDue(WINDOW)).toBe(T0 + 9_000);
      const settled = await store.delivered.forJobs([newer, due, later]);
      expect(settled.map((row) => [row.jobId, row.readbackOutcome, row.held])).toEqual(
        expect.arrayContaining([
          [newer, 'not_applied', { momentumMeetingId: '7', opportunityId: '0068d0000202XyZAAU' }],
          [due, 'confirmed', null],
          [later, null, null],
        ]),
      );
    });

    it('when a delivery names a meeting by start or by Momentum id, then namedAmong finds it; one that is not read back keeps no window', async () => {
      const { store } = await fixture.fresh();
      const byStart = await deliver(store, { meetingKey: uniqueKey('meeting:s'), startsAt: WINDOW, sent: { accountId: '0018d0000101XyZAAU' } });
      const byId = await deliver(store, { meetingKey: uniqueKey('momentum:41'), momentumId: '41', sent: { accountId: '0018d0000101XyZAAU' } });
      await deliver(store, { meetingKey: uniqueKey('meeting:far'), startsAt: WINDOW + 86_400_000, sent: {} });

      const found = await store.delivered.namedAmong(WINDOW - 1, WINDOW + 1, ['41', '42']);

      expect(found.map((row) => row.jobId).sort((x, y) => x - y)).toEqual([byStart, byId]);
      expect(found.every((row) => row.readback === undefined)).toBe(true);
      expect(await store.delivered.namedAmong(0, -1, [])).toEqual([]);
    });
  });
}
