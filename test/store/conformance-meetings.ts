import { describe, expect, it } from 'vitest';

import type { MeetingSourceState, Store } from '../../src/store/types.ts';
import { claimAll, message, type StoreHarness, T0, uniqueKey, useFixture } from './conformance-fixture.ts';

/*
 * Meeting identity: which source records are one meeting. Exact links (an iCalendar UID) join
 * whatever holds them; timed links (a Zoom number, a join link, a host) join another system's
 * record near the same start, when exactly one meeting is there; meetings first seen apart are
 * joined into the oldest once a record ties them; an older state changes nothing.
 */

const MINUTE = 60_000;
const START = Date.parse('2026-03-02T16:00:00Z');
let eventIds = 0;

/** One state of a record; the event id grows with each call, so later calls are newer states. */
const state = (recordKey: string, source: string, fields: Partial<MeetingSourceState> = {}): MeetingSourceState => ({
  recordKey,
  source,
  exactLinks: [],
  timedLinks: [],
  startAt: START,
  toleranceMs: 5 * MINUTE,
  cancelled: false,
  version: { sourceVersion: null, eventId: ++eventIds },
  ...fields,
});

/** Stores an event with a map-event job of `serialKey` and runs it to `succeeded`, storing a match record of `meetingId`. */
async function mappedEvent(store: Store, serialKey: string, meetingId: number): Promise<number> {
  const stored = await store.ingest(message([uniqueKey('evt')], { source: 'calendar' }), (event) => [
    { kind: 'map-event', payload: { eventId: event.id }, serialKey, runAt: T0 },
  ]);
  const event = stored.created[0]!;
  const owner = uniqueKey('w');
  const [job] = await claimAll(store, owner);
  const matchRecord = { eventId: event.id, meetingKey: serialKey, outcome: 'matched', rule: 'explicit_ids', summary: 'named', record: {}, meetingId };
  const remap = { kind: 'remap', payload: { eventId: event.id }, eventId: event.id, coalesceKey: `meeting-id:${meetingId}`, runAt: T0 };
  await store.finish({ jobId: job!.id, leaseOwner: owner, outcome: { state: 'succeeded' }, enqueue: [remap], matchRecord });
  return event.id;
}

export function meetingConformance(harness: StoreHarness): void {
  describe('meeting identity', () => {
    const fixture = useFixture(harness);

    it('when records share an iCalendar UID, then they are one meeting whatever their systems and starts, and a record keeps its meeting', async () => {
      const { store } = await fixture.fresh();
      const ana = await store.meetings.resolve(state(uniqueKey('microsoft:ana'), 'microsoft', { exactLinks: ['ical:040000008200E0'] }));
      const bo = await store.meetings.resolve(
        state(uniqueKey('microsoft:bo'), 'microsoft', { exactLinks: ['ical:040000008200E0'], startAt: START + 3_600_000 }),
      );
      const signedKey = uniqueKey('calendar:signed');
      const signed = await store.meetings.resolve(state(signedKey, 'calendar', { exactLinks: ['ical:040000008200E0'] }));
      const again = await store.meetings.resolve(state(signedKey, 'calendar'));
      const other = await store.meetings.resolve(state(uniqueKey('microsoft:other'), 'microsoft', { exactLinks: ['ical:another'] }));

      expect([bo.meetingId, signed.meetingId, again.meetingId]).toEqual([ana.meetingId, ana.meetingId, ana.meetingId]);
      expect(other.meetingId).not.toBe(ana.meetingId);
      expect(await store.meetings.meetingOfRecord(signedKey)).toBe(ana.meetingId);
      expect(await store.meetings.meetingOfRecord(uniqueKey('calendar:never-seen'))).toBeUndefined();
      expect((await store.meetings.meeting(ana.meetingId))?.sources.map((source) => source.source).sort()).toEqual(['calendar', 'microsoft', 'microsoft']);
    });

    it('when another system holds a timed link within the tolerance, then it joins; past the tolerance, in the same system, or at a tie, it does not', async () => {
      const { store } = await fixture.fresh();
      const google = await store.meetings.resolve(state(uniqueKey('google:a'), 'google', { timedLinks: ['zoom:85012345678', 'host:ana@example.com'] }));
      const zoom = await store.meetings.resolve(state(uniqueKey('zoom:a'), 'zoom', { timedLinks: ['zoom:85012345678'], startAt: START + 4 * MINUTE }));
      const late = await store.meetings.resolve(state(uniqueKey('zoom:b'), 'zoom', { timedLinks: ['zoom:85012345678'], startAt: START + 6 * MINUTE }));
      const sameSystem = await store.meetings.resolve(state(uniqueKey('google:b'), 'google', { timedLinks: ['host:ana@example.com'] }));
      // Ana now has two Google meetings at 16:00: a host + start alone cannot say which one a Salesforce Event is.
      const tie = await store.meetings.resolve(state(uniqueKey('salesforce:a'), 'salesforce', { timedLinks: ['host:ana@example.com'] }));

      expect(zoom.meetingId).toBe(google.meetingId);
      expect(new Set([google.meetingId, late.meetingId, sameSystem.meetingId, tie.meetingId]).size).toBe(4);
    });

    it('when two records first seen as two meetings are tied by a third, then they are joined into the oldest, with their match records, and the old id still names it', async () => {
      const { store } = await fixture.fresh();
      const googleKey = uniqueKey('google:g1');
      const salesforceKey = uniqueKey('salesforce:Event:e1');
      const google = await store.meetings.resolve(state(googleKey, 'google', { exactLinks: ['ical:g1@google.com'], timedLinks: ['join:meet.google.com/abc'] }));
      const salesforce = await store.meetings.resolve(state(salesforceKey, 'salesforce', { timedLinks: ['host:ana@example.com'] }));
      const salesforceEvent = await mappedEvent(store, salesforceKey, salesforce.meetingId);

      const signedKey = uniqueKey('calendar:s1');
      const signed = await store.meetings.resolve(state(signedKey, 'calendar', { exactLinks: ['ical:g1@google.com'], timedLinks: ['host:ana@example.com'] }));

      expect(salesforce.meetingId).not.toBe(google.meetingId);
      expect(signed).toEqual({ meetingId: google.meetingId, absorbedIds: [salesforce.meetingId], importedIds: [], stale: false });
      const byOldId = await store.meetings.meeting(salesforce.meetingId);
      expect(byOldId).toMatchObject({ id: google.meetingId, absorbedIds: [salesforce.meetingId] });
      // Sources are listed by when they were first seen (these three within a millisecond or so): compared as a set.
      expect(byOldId?.sources.map((source) => [source.recordKey, source.meetingId]).sort()).toEqual(
        [
          [googleKey, google.meetingId],
          [salesforceKey, google.meetingId],
          [signedKey, google.meetingId],
        ].sort(),
      );
      expect((await store.matches.matchesOfMeeting(google.meetingId, 10)).map((match) => match.eventId)).toEqual([salesforceEvent]);
      expect(await store.matches.matchesOfMeeting(salesforce.meetingId, 10)).toEqual([]);
      expect((await store.listEvents({ meetingId: google.meetingId, limit: 10 })).map((event) => event.id)).toEqual([salesforceEvent]);
      expect((await store.listJobs({ kinds: ['remap'], meetingId: google.meetingId, limit: 10 })).map((job) => job.eventId)).toEqual([salesforceEvent]);
      expect(await store.meetings.meeting(999_999)).toBeUndefined();
    });

    it('when a record moves to a new start, then it keeps its meeting, and its timed links join near the new start only', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('salesforce:Event:moved');
      const first = await store.meetings.resolve(state(key, 'salesforce', { timedLinks: ['host:bo@example.com'] }));
      const moved = await store.meetings.resolve(state(key, 'salesforce', { timedLinks: ['host:bo@example.com'], startAt: START + 3_600_000 }));
      const atOld = await store.meetings.resolve(state(uniqueKey('zoom:old'), 'zoom', { timedLinks: ['host:bo@example.com'] }));
      const atNew = await store.meetings.resolve(
        state(uniqueKey('zoom:new'), 'zoom', { timedLinks: ['host:bo@example.com'], startAt: START + 3_600_000 + MINUTE }),
      );

      expect(moved.meetingId).toBe(first.meetingId);
      expect(atOld.meetingId).not.toBe(first.meetingId);
      expect(atNew.meetingId).toBe(first.meetingId);
    });

    it('when a state older than the recorded one arrives, then it names the meeting and changes nothing; a cancelled record draws no timed joins', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('google:cancelled');
      const newer = { sourceVersion: T0 + 2, eventId: ++eventIds };
      const cancelled = await store.meetings.resolve(state(key, 'google', { timedLinks: ['host:cy@example.com'], cancelled: true, version: newer }));
      const older = await store.meetings.resolve(
        state(key, 'google', { timedLinks: ['host:cy@example.com'], version: { sourceVersion: T0 + 1, eventId: ++eventIds } }),
      );
      const zoom = await store.meetings.resolve(state(uniqueKey('zoom:c'), 'zoom', { timedLinks: ['host:cy@example.com'], importedId: 'uuid-1' }));

      expect(older).toEqual({ meetingId: cancelled.meetingId, absorbedIds: [], importedIds: [], stale: true });
      expect((await store.meetings.meeting(cancelled.meetingId))?.sources).toEqual([
        expect.objectContaining({ recordKey: key, cancelled: true, eventId: newer.eventId }),
      ]);
      expect(zoom).toMatchObject({ importedIds: ['uuid-1'], stale: false });
      expect(zoom.meetingId).not.toBe(cancelled.meetingId);
    });

    it('when two sources of one meeting are resolved at the same time, then they are one meeting', async () => {
      const { store } = await fixture.fresh();
      const [a, b] = await Promise.all([
        store.meetings.resolve(state(uniqueKey('microsoft:x'), 'microsoft', { exactLinks: ['ical:same-call'] })),
        store.meetings.resolve(state(uniqueKey('calendar:y'), 'calendar', { exactLinks: ['ical:same-call'] })),
      ]);

      expect(a.meetingId).toBe(b.meetingId);
    });

    it('when a map-event job finishes with a cancellation, then the pending job of the meeting is cancelled and a later job of an older state is stored stale', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('meeting-id');
      const [pending] = await store.enqueue([{ kind: 'remap', payload: { n: 1 }, coalesceKey: key, runAt: T0 + 60_000 }]);
      // Two states of the meeting's source: the older one's mapping is late, the newer one is the cancellation.
      const stored = await store.ingest(message([uniqueKey('older'), uniqueKey('cancel')], { source: 'calendar' }), (event) => [
        { kind: 'map-event', payload: { eventId: event.id }, runAt: event.dedupeKey.startsWith('older') ? T0 + 60_000 : T0 },
      ]);
      const [olderEvent, cancelEvent] = stored.created.map((event) => event.id);
      const owner = uniqueKey('w');
      const [mapJob] = await claimAll(store, owner);

      await store.finish({
        jobId: mapJob!.id,
        leaseOwner: owner,
        outcome: { state: 'skipped', reason: 'cancelled' },
        cancelPending: {
          coalesceKeys: [key],
          reason: 'cancelled: the meeting was cancelled at its source',
          version: { sourceVersion: null, eventId: cancelEvent! },
        },
      });
      const [late] = await store.enqueue([{ kind: 'remap', payload: { n: 2 }, coalesceKey: key, eventId: olderEvent!, runAt: T0 }]);

      expect(await store.getJob(pending!.id)).toMatchObject({ state: 'cancelled', lastError: 'cancelled: the meeting was cancelled at its source' });
      expect(late).toMatchObject({ state: 'superseded', supersededBy: mapJob!.id });
      expect(await store.pendingOfKey(key)).toBeUndefined();
    });
  });
}
