import { expect, it } from 'vitest';

import { DAY_MS, runRetentionPass } from '../../src/retention/retention-pass.ts';
import type { RetentionPass, Store, WalkBatch, WalkBatchResult } from '../../src/store/types.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { type Engine, openRealStore, type RealStore } from '../support/real-store.ts';
import { describeEachEngine, queryRows } from '../support/stored-state.ts';
import { deliveredState, endRemap, ingestState, mapState } from './support/meeting-life.ts';
import { danglingReferences, rowCounts } from './support/references.ts';

/*
 * Retention on the real store of each engine: what a pass removes once it is older than the
 * cutoff, what it keeps whatever its age (a meeting's newest state, its last delivery, its match,
 * its pin, whatever is still to run), and that nothing left points at a removed row.
 */

const cleanups = cleanupAfterEach();

async function open(engine: Engine): Promise<RealStore> {
  const real = await openRealStore(engine, 'retention');
  cleanups.push(real.close);
  return real;
}

/** A cutoff between the rows a test made so far (older) and those it makes next (as old or younger). */
function cutoffNow(): number {
  const mark = Date.now() + 1;
  while (Date.now() < mark) {
    // The next row must be stamped at or after the mark: wait out the current millisecond.
  }
  return mark;
}

/** A pass one day after `cutoff` with RETENTION_DAYS=1, so the cutoff is exactly `cutoff`. */
async function passAt(
  store: Store,
  cutoff: number,
  options: { rematchDays?: number; batchRows?: number; later?: number; meetingDays?: number } = {},
): Promise<RetentionPass> {
  return runRetentionPass({
    store: store.retention,
    now: cutoff + DAY_MS + (options.later ?? 0),
    days: 1,
    meetingDays: options.meetingDays ?? 0,
    rematchDays: options.rematchDays ?? 0,
    previous: await store.retention.lastPass(),
    pauseMs: 0,
    ...(options.batchRows === undefined ? {} : { batchRows: options.batchRows }),
  });
}

/** Source record `sf:<meeting>` (linked by `ical:<meeting>`) has its newest state `version`, stored as `eventId`. */
const sourceRecordNames = (store: Store, meeting: string, version: number, eventId: number) =>
  store.meetings.resolve({
    recordKey: `sf:${meeting}`,
    source: 'salesforce',
    exactLinks: [`ical:${meeting.toLowerCase()}`],
    timedLinks: [],
    toleranceMs: 0,
    cancelled: false,
    version: { sourceVersion: version, eventId },
  });

const ids = async (url: string, sql: string) => (await queryRows(url, sql)).map((row) => Number(row.id));

describeEachEngine('retention', (engine) => {
  it('when events and their jobs are older than the cutoff, then they go in batches of about the batch size in rows, each its own call, and the pass records what went', async () => {
    // Arrange: twelve old events whose mapping ended with nothing to send.
    const { store, url } = await open(engine);
    for (let n = 1; n <= 12; n += 1) {
      const state = await ingestState(store, `old-${n}`, 1);
      expect(await store.claim({ owner: 'w', limit: 10, leaseMs: 60_000 })).toHaveLength(1);
      await store.finish({ jobId: state.mapJobId, leaseOwner: 'w', outcome: { state: 'skipped', reason: 'nothing to send' } });
    }
    const cutoff = cutoffNow();
    const batches: Array<WalkBatch & WalkBatchResult> = [];
    const retention = {
      ...store.retention,
      pruneWalk: async (batch: WalkBatch) => {
        const result = await store.retention.pruneWalk(batch);
        batches.push({ ...batch, ...result });
        return result;
      },
    };

    // Act
    const pass = await runRetentionPass({ store: retention, now: cutoff + DAY_MS, days: 1, rematchDays: 0, previous: undefined, batchRows: 40, pauseMs: 0 });

    // Assert: 40 rows a batch, an event counting for eight (EVENT_ROWS): 5 + 5 + 2 events, each batch with its jobs; then the messages left without events.
    expect(batches.filter((batch) => batch.walk === 'events').map((batch) => batch.removed.events ?? 0)).toEqual([5, 5, 2]);
    expect(batches.filter((batch) => batch.walk === 'events').map((batch) => batch.removed.jobs ?? 0)).toEqual([5, 5, 2]);
    expect(batches.filter((batch) => batch.walk === 'messages').map((batch) => batch.removed.messages ?? 0)).toEqual([12]);
    expect(pass).toMatchObject({ cutoff, more: false, removed: { events: 12, jobs: 12, messages: 12 }, walk: { caughtUp: true } });
    expect(await store.retention.lastPass()).toEqual(pass);
    expect(await rowCounts(url)).toMatchObject({ inbound_messages: 0, inbound_events: 0, jobs: 0 });
  });

  it("when a meeting's old states are removed, then its newest state, its last delivery, its match, its source's event, its pin and what is still to run stay, and nothing left points at a removed row", async () => {
    // Arrange: meeting A delivered three times, then a fourth state whose remap died.
    const { store, url } = await open(engine);
    const a1 = await deliveredState(store, 'A', 1);
    const a2 = await deliveredState(store, 'A', 2);
    const a3 = await deliveredState(store, 'A', 3);
    const a4 = await mapState(store, 'A', await ingestState(store, 'A', 4), 4);
    await endRemap(store, 'A', a4, 'dead');
    await store.matches.setPin({
      meetingKey: 'sf:A',
      records: { opportunityId: '0068d0000101XyZAAU' },
      pinnedBy: 'ops',
      reason: 'checked',
      pinnedAt: Date.now(),
    });
    // The source record's facts name the second state's event (the meeting's page links to it).
    await sourceRecordNames(store, 'A', 2, a2.eventId);
    // Meeting S: its first remap still waiting when the second state supersedes it; the second delivered.
    const s1 = await mapState(store, 'S', await ingestState(store, 'S', 1), 1, { waiting: true });
    const s2 = await mapState(store, 'S', await ingestState(store, 'S', 2), 2);
    await endRemap(store, 'S', s2, 'delivered');
    // Jobs of no event: a manual remap that died (replayed below), a sync that ran twice.
    const [manual] = await store.enqueue([{ kind: 'remap', payload: { manual: true }, coalesceKey: 'meeting:M' }]);
    await store.claim({ owner: 'w', limit: 10, leaseMs: 60_000 });
    await store.finish({ jobId: manual!.id, leaseOwner: 'w', outcome: { state: 'dead', reason: 'rejected' } });
    const syncs: number[] = [];
    for (let n = 0; n < 2; n += 1) {
      const [sync] = await store.enqueue([{ kind: 'calendar-sync', payload: {}, coalesceKey: 'calendar:c' }]);
      await store.claim({ owner: 'w', limit: 10, leaseMs: 60_000 });
      await store.finish({ jobId: sync!.id, leaseOwner: 'w', outcome: { state: 'succeeded' } });
      syncs.push(sync!.id);
    }
    // Meeting W: a state whose mapping has not run yet.
    const waiting = await ingestState(store, 'W', 1, { waiting: true });
    const cutoff = cutoffNow();
    // Younger than the cutoff: a delivered meeting, and the replay of the old manual remap (still waiting).
    const young = await deliveredState(store, 'Y', 1);
    const [replay] = await store.enqueue([
      { kind: 'remap', payload: { manual: true }, coalesceKey: 'meeting:M', replayOf: manual!.id, runAt: Date.now() + DAY_MS },
    ]);

    // Act
    const pass = await passAt(store, cutoff);

    // Assert: A's first state and S's first state went with everything made from them, and one sync.
    expect(pass.removed).toEqual({
      events: 2,
      messages: 2,
      jobs: 5,
      attempts: 1,
      deliveredMeetings: 1,
      matchRecords: 2,
      matchTouches: 6,
      activityRollups: expect.any(Number),
      meetingSources: 0,
      meetingVersions: 0,
      meetings: 0,
    });
    // The activity roll-ups of buckets before the cutoff went with the rows they counted.
    expect(await ids(url, `SELECT bucket AS id FROM activity_counts WHERE bucket < ${cutoff}`)).toEqual([]);
    expect(await ids(url, 'SELECT id FROM inbound_events ORDER BY id')).toEqual([
      a2.eventId,
      a3.eventId,
      a4.eventId,
      s2.eventId,
      waiting.eventId,
      young.eventId,
    ]);
    expect(await ids(url, 'SELECT id FROM inbound_messages ORDER BY id')).toEqual([
      a2.messageId,
      a3.messageId,
      a4.messageId,
      s2.messageId,
      waiting.messageId,
      young.messageId,
    ]);
    expect(s1.remapJobId).toBeDefined();
    expect(await ids(url, 'SELECT id FROM jobs ORDER BY id')).toEqual(
      [a2, a3, a4]
        .flatMap((state) => [state.mapJobId, state.remapJobId!])
        .concat([s2.mapJobId, s2.remapJobId!, manual!.id, syncs[1]!, waiting.mapJobId, young.mapJobId, young.remapJobId!, replay!.id]),
    );
    // The last delivery is still what "unchanged, not sent again" compares with, with its attempt and its row.
    expect((await store.lastSucceeded('remap', 'meeting:A'))?.id).toBe(a3.remapJobId);
    expect((await store.getAttempts(a3.remapJobId!)).map((attempt) => attempt.status)).toEqual([200]);
    expect((await store.delivered.forJobs([a1.remapJobId!, a3.remapJobId!])).map((row) => row.jobId)).toEqual([a3.remapJobId]);
    // The newest match of each meeting key and its event, the pin, the meeting's identity.
    expect((await store.matches.meetingMatches('sf:A', 10)).map((match) => match.eventId)).toEqual([a4.eventId, a3.eventId, a2.eventId]);
    expect(await store.matches.getPin('sf:A')).toMatchObject({ reason: 'checked' });
    expect(await rowCounts(url)).toMatchObject({ meeting_pins: 1, meetings: 1, meeting_sources: 1, meeting_versions: 3 });
    expect(await danglingReferences(url)).toEqual([]);
  });

  it('when a pass finds nothing more, then the next removes nothing; a row kept then and removable since goes when the walk starts over a day later', async () => {
    // Arrange: a state whose mapping waits past the first passes.
    const { store, url } = await open(engine);
    const waiting = await ingestState(store, 'W', 1, { waiting: true });
    const cutoff = cutoffNow();
    const first = await passAt(store, cutoff);
    await store.claim({ owner: 'w', limit: 10, leaseMs: 60_000, now: Date.now() + 2 * DAY_MS });
    await store.finish({ jobId: waiting.mapJobId, leaseOwner: 'w', outcome: { state: 'skipped', reason: 'nothing to send' } });
    const ended = cutoffNow();

    // Act
    const again = await passAt(store, ended);
    const dayLater = await passAt(store, ended, { later: DAY_MS });

    // Assert
    expect(first.removed.events).toBe(0);
    expect(again.removed.events).toBe(0);
    expect(again.walk.startedAt).toBe(first.walk.startedAt);
    expect(dayLater.walk.startedAt).toBeGreaterThan(first.walk.startedAt);
    expect(dayLater.removed).toMatchObject({ events: 1, jobs: 1, messages: 1 });
    expect(await rowCounts(url)).toMatchObject({ inbound_events: 0, jobs: 0, inbound_messages: 0 });
  });

  it('when match touches are older than both the cutoff and the re-match window, then they go; within either they stay', async () => {
    // Arrange: two meetings matched before the cutoff.
    const { store, url } = await open(engine);
    await deliveredState(store, 'T', 1);
    await deliveredState(store, 'U', 1);
    const cutoff = cutoffNow();

    // Act: the re-match window reaches back past the cutoff, then no longer.
    const within = await passAt(store, cutoff, { rematchDays: 2 });
    const past = await passAt(store, cutoff, { rematchDays: 1 });

    // Assert
    expect(within.removed.matchTouches).toBe(0);
    expect(past.removed.matchTouches).toBe(2);
    expect(await rowCounts(url)).toMatchObject({ match_touches: 0, match_records: 2 });
  });

  it('when a meeting has been at rest past the age limit of kept state, then its newest state, last delivery, match, source record and meeting go too; its pin, a meeting re-matched since and a younger one stay', async () => {
    // Arrange: meeting A delivered twice, its source record naming the second state, pinned by an operator.
    const { store, url } = await open(engine);
    await deliveredState(store, 'A', 1);
    const a2 = await deliveredState(store, 'A', 2);
    await sourceRecordNames(store, 'A', 2, a2.eventId);
    await store.matches.setPin({
      meetingKey: 'sf:A',
      records: { opportunityId: '0068d0000101XyZAAU' },
      pinnedBy: 'ops',
      reason: 'checked',
      pinnedAt: Date.now(),
    });
    // Meeting R: delivered as long ago, then re-matched after the limit (a new match record of its old event).
    const r1 = await deliveredState(store, 'R', 1);
    const cutoff = cutoffNow();
    const [rematch] = await store.enqueue([{ kind: 'rematch', payload: {} }]);
    await store.claim({ owner: 'w', limit: 10, leaseMs: 60_000 });
    await store.finish({
      jobId: rematch!.id,
      leaseOwner: 'w',
      outcome: { state: 'succeeded' },
      matchRecord: { eventId: r1.eventId, meetingKey: 'sf:R', outcome: 'matched', rule: 'what-id', summary: 'again', record: {}, touches: [] },
    });
    const young = await deliveredState(store, 'Y', 1);

    // Act: RETENTION_MEETING_DAYS as short as RETENTION_DAYS, so the age limit is the cutoff.
    const pass = await passAt(store, cutoff, { meetingDays: 1 });

    // Assert: everything of A went but its pin; R's re-matched event and Y stayed, with what hangs on them.
    expect(pass.removed).toMatchObject({ events: 2, messages: 2, jobs: 4, attempts: 2, deliveredMeetings: 2, meetingSources: 1, meetings: 1 });
    expect(pass.removed.meetingVersions).toBeGreaterThanOrEqual(1);
    expect(await ids(url, 'SELECT id FROM inbound_events ORDER BY id')).toEqual([r1.eventId, young.eventId]);
    expect(await store.lastSucceeded('remap', 'meeting:A')).toBeUndefined();
    expect(await store.matches.meetingMatches('sf:A', 10)).toEqual([]);
    expect((await store.matches.meetingMatches('sf:R', 10)).map((match) => match.summary)).toEqual(['again', 'state 1']);
    expect(await store.matches.getPin('sf:A')).toMatchObject({ reason: 'checked' });
    expect(await queryRows(url, `SELECT link FROM meeting_links WHERE record_key = 'sf:A'`)).toEqual([]);
    expect(await rowCounts(url)).toMatchObject({ meeting_pins: 1, meetings: 0, meeting_sources: 0 });
    expect(await queryRows(url, `SELECT coalesce_key FROM meeting_versions WHERE coalesce_key = 'meeting:A'`)).toEqual([]);
    expect(await danglingReferences(url)).toEqual([]);
  });
});
