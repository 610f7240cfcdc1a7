import { expect } from 'vitest';

import type { FinishJob, Store } from '../../../src/store/types.ts';

/*
 * A meeting's life as the bridge leaves it in the store, made through the store's own calls: a
 * message with one event (a state of the meeting), its map-event job leaving a match record and
 * a remap, and the remap delivered (a delivery row, an attempt) or left to end otherwise.
 */

const OWNER = 'retention-test-worker';
const DAY_MS = 86_400_000;

export interface StoredState {
  messageId: number;
  eventId: number;
  mapJobId: number;
  remapJobId?: number;
}

/** Claims the one due job with this id (the seeding leaves one due job at a time) and finishes it as `finish` says. */
async function run(store: Store, jobId: number, finish: Omit<FinishJob, 'jobId' | 'leaseOwner'>): Promise<void> {
  const claimed = await store.claim({ owner: OWNER, limit: 10, leaseMs: 60_000 });
  expect(claimed.map((job) => job.id)).toEqual([jobId]);
  expect(await store.finish({ jobId, leaseOwner: OWNER, ...finish })).toBe(true);
}

/** A message with one event (state `n` of `meeting`) and its map-event job; `waiting` leaves the job pending a day ahead. */
export async function ingestState(store: Store, meeting: string, n: number, options: { waiting?: boolean } = {}): Promise<StoredState> {
  const { created } = await store.ingest(
    {
      source: 'salesforce',
      senderId: '00D000000000001AAA',
      rawPayload: `<notifications>${meeting} state ${n}</notifications>`,
      events: [{ dedupeKey: `${meeting}:${n}`, parsedPayload: { meeting, n } }],
    },
    () => [{ kind: 'map-event', payload: { n }, serialKey: `sf:${meeting}`, ...(options.waiting ? { runAt: Date.now() + DAY_MS } : {}) }],
  );
  const event = created[0]!;
  const [job] = await store.listJobs({ eventId: event.id, limit: 1 });
  return { messageId: event.messageId, eventId: event.id, mapJobId: job!.id };
}

/** Maps a stored state: its match record (with what it looked at) and a remap of the meeting made from it; `waiting` leaves the remap pending a day ahead. */
export async function mapState(store: Store, meeting: string, state: StoredState, n: number, options: { waiting?: boolean } = {}): Promise<StoredState> {
  await run(store, state.mapJobId, {
    outcome: { state: 'succeeded' },
    eventUpdate: { eventId: state.eventId, state: 'mapped' },
    matchRecord: {
      eventId: state.eventId,
      meetingKey: `sf:${meeting}`,
      outcome: 'matched',
      rule: 'what-id',
      summary: `state ${n}`,
      record: { n },
      touches: [{ kind: 'opportunity', value: `opp-${meeting}-${n}` }],
    },
    enqueue: [
      {
        kind: 'remap',
        payload: { meeting, n },
        coalesceKey: `meeting:${meeting}`,
        eventId: state.eventId,
        sourceVersion: n,
        ...(options.waiting ? { runAt: Date.now() + DAY_MS } : {}),
      },
    ],
  });
  const remapJobId = await store.pendingOfKey(`meeting:${meeting}`);
  return { ...state, remapJobId: remapJobId! };
}

/** The remap of a mapped state ends: delivered (an attempt and a delivery row), or dead after one attempt. */
export async function endRemap(store: Store, meeting: string, state: StoredState, end: 'delivered' | 'dead'): Promise<void> {
  const attempt = { startedAt: Date.now(), durationMs: 12, status: end === 'delivered' ? 200 : 400 };
  await run(
    store,
    state.remapJobId!,
    end === 'delivered'
      ? { outcome: { state: 'succeeded' }, attempt, delivered: { kind: 'remap', meetingKey: `meeting:${meeting}`, sent: { opportunityId: `opp-${meeting}` } } }
      : { outcome: { state: 'dead', reason: 'rejected' }, attempt },
  );
}

/** One state of a meeting, from its message to its delivered remap. */
export async function deliveredState(store: Store, meeting: string, n: number): Promise<StoredState> {
  const mapped = await mapState(store, meeting, await ingestState(store, meeting, n), n);
  await endRemap(store, meeting, mapped, 'delivered');
  return mapped;
}
