import { afterEach, describe, expect, it } from 'vitest';

import { backoffMs, startSubscription, type StoredCursor, type Subscription, type SubscriptionOptions } from '../../../src/salesforce/pubsub/subscription.ts';
import { events, replayId, type ScriptedStream, scriptedStream, settle } from './support/scripted-stream.ts';

/*
 * One topic's subscription across streams (docs/protocols.md, Pub/Sub): where each stream starts,
 * and what each way a stream ends leads to, against streams played by the test.
 */

const CORRUPTED = 'sfdc.platform.eventbus.grpc.subscription.fetch.replayid.corrupted';

interface Harness {
  streams: ScriptedStream[];
  cursor: StoredCursor;
  backstops: Array<number | undefined>;
  refreshes: number;
  /** The place of each backoff in its row of streams that stored nothing (0: the first). */
  backoffs: number[];
  lease: { held: boolean; released: number };
  states: string[];
  subscription: Subscription;
}

const running: Subscription[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((subscription) => subscription.stop()));
});

function subscribe(overrides: Partial<SubscriptionOptions> & { stored?: StoredCursor } = {}): Harness {
  const harness = {
    streams: [] as ScriptedStream[],
    cursor: overrides.stored ?? {},
    backstops: [] as Array<number | undefined>,
    refreshes: 0,
    backoffs: [] as number[],
    lease: { held: true, released: 0 },
    states: [] as string[],
  };
  const { stored: _stored, ...rest } = overrides;
  const subscription = startSubscription({
    topic: '/data/EventChangeEvent',
    batch: 2,
    startPreset: 'LATEST',
    silenceMs: 60_000,
    backoff: { baseMs: 1, maxMs: 4 },
    leaseEveryMs: 5,
    openStream: () => {
      const stream = scriptedStream();
      harness.streams.push(stream);
      return stream;
    },
    cursor: async () => harness.cursor,
    // Storing a batch stores its last replay id and commit time with it.
    store: async (batch) => {
      harness.cursor = { replayId: batch.at(-1)!.replayId, commitTimestamp: 1_700_000_000_000 + batch.at(-1)!.payload[0]! };
    },
    keepalive: async (id) => void (harness.cursor = { ...harness.cursor, replayId: id }),
    backstop: async (since) => void harness.backstops.push(since),
    refreshAuth: async () => void (harness.refreshes += 1),
    holdLease: async () => harness.lease.held,
    releaseLease: async () => void (harness.lease.released += 1),
    onState: (state) => void harness.states.push(state),
    onBackoff: (attempt) => void harness.backoffs.push(attempt),
    ...rest,
  });
  running.push(subscription);
  return {
    ...harness,
    subscription,
    get streams() {
      return harness.streams;
    },
    get cursor() {
      return harness.cursor;
    },
    get refreshes() {
      return harness.refreshes;
    },
  } as Harness;
}

async function streamNumber(harness: Harness, n: number): Promise<ScriptedStream> {
  for (let tries = 0; harness.streams.length < n; tries += 1) {
    if (tries > 500) throw new Error(`stream ${n} never opened (${harness.streams.length} so far; states ${harness.states.join(', ')})`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return harness.streams[n - 1]!;
}

describe('a Pub/Sub subscription', () => {
  it('when no replay id is stored, then the first stream starts from SALESFORCE_PUBSUB_START; after a restart it resumes after the stored id', async () => {
    // Arrange: a first bridge stores two events, then stops.
    const first = subscribe({ startPreset: 'EARLIEST' });
    const stream = await streamNumber(first, 1);
    stream.respond({ events: events(5, 2), latestReplayId: replayId(6) });
    await settle();
    await first.subscription.stop();

    // Act: a second bridge on the same store.
    const second = subscribe({ stored: first.cursor });
    const resumed = await streamNumber(second, 1);

    // Assert
    expect(stream.requests[0]).toMatchObject({ replayPreset: 'EARLIEST', numRequested: 2 });
    expect(resumed.requests[0]).toEqual({ topicName: '/data/EventChangeEvent', replayPreset: 'CUSTOM', replayId: replayId(6), numRequested: 2 });
    expect(first.lease.released).toBe(1);
  });

  it('when Salesforce calls the stored replay id corrupted, then it is never asked for again: the next stream starts from EARLIEST and a backstop reads from the last stored commit', async () => {
    // Arrange: an id stored long ago.
    const harness = subscribe({ stored: { replayId: replayId(1), commitTimestamp: 1_690_000_000_000 } });
    const stream = await streamNumber(harness, 1);

    // Act
    stream.end({ kind: 'error', code: 3, errorCode: CORRUPTED, message: 'replay id corrupted' });
    const next = await streamNumber(harness, 2);

    // Assert
    expect(stream.requests[0]).toMatchObject({ replayPreset: 'CUSTOM', replayId: replayId(1) });
    expect(next.requests[0]).toEqual({ topicName: '/data/EventChangeEvent', replayPreset: 'EARLIEST', numRequested: 2 });
    expect(harness.backstops).toEqual([1_690_000_000_000]);
  });

  it('when a stream started from EARLIEST stores events and then drops, then the next resumes from what it stored, not from EARLIEST again', async () => {
    const harness = subscribe({ stored: { replayId: replayId(1) } });
    (await streamNumber(harness, 1)).end({ kind: 'error', code: 3, errorCode: CORRUPTED, message: 'corrupted' });
    const earliest = await streamNumber(harness, 2);

    earliest.respond({ events: events(20, 2), latestReplayId: replayId(21) });
    await settle();
    earliest.end({ kind: 'error', code: 14, errorCode: 'sfdc.platform.eventbus.grpc.service.unavailable', message: 'unavailable' });
    const third = await streamNumber(harness, 3);

    expect(third.requests[0]).toMatchObject({ replayPreset: 'CUSTOM', replayId: replayId(21) });
  });

  it('when a batch cannot be stored, then every new stream waits a longer backoff, though each one received events; once a batch is stored, the row starts again', async () => {
    // Arrange: storing fails (a REST read refused) until the test lets it succeed.
    let refusing = true;
    const harness = subscribe({
      stored: { replayId: replayId(1) },
      store: async () => {
        if (refusing) throw new Error('REQUEST_LIMIT_EXCEEDED');
      },
    });

    // Act: three streams deliver the same batch, which cannot be stored; the fourth's is.
    for (let n = 1; n <= 3; n += 1) (await streamNumber(harness, n)).respond({ events: events(2, 2), latestReplayId: replayId(3) });
    const fourth = await streamNumber(harness, 4);
    refusing = false;
    fourth.respond({ events: events(2, 2), latestReplayId: replayId(3) });
    await settle();
    fourth.end({ kind: 'error', code: 14, message: 'unavailable' });
    await streamNumber(harness, 5);

    // Assert: the waits grew 0, 1, 2; after the stored batch the next wait is the first of a row again.
    expect(harness.backoffs).toEqual([0, 1, 2, 0]);
    expect(harness.streams.slice(0, 4).map((stream) => stream.requests[0]?.replayId)).toEqual([replayId(1), replayId(1), replayId(1), replayId(1)]);
  });

  it('when the token is refused, then it is refreshed and a new stream opens at once; refused again, it waits a backoff before the next refresh', async () => {
    const harness = subscribe({ stored: { replayId: replayId(4) } });

    (await streamNumber(harness, 1)).end({ kind: 'error', code: 16, message: 'expired session' });
    const second = await streamNumber(harness, 2);
    second.end({ kind: 'error', code: 16, message: 'expired session' });
    const third = await streamNumber(harness, 3);

    expect(harness.refreshes).toBe(2);
    expect(harness.backoffs).toEqual([0]);
    expect(second.requests[0]).toMatchObject({ replayPreset: 'CUSTOM', replayId: replayId(4) });
    expect(third.requests[0]).toMatchObject({ replayPreset: 'CUSTOM', replayId: replayId(4) });
  });

  it('when another instance holds the lease, then no stream opens until it is free; a lease lost mid-stream cancels the stream', async () => {
    // Arrange: another instance holds the lease.
    let held = false;
    const harness = subscribe({ holdLease: async () => held });
    await new Promise((resolve) => setTimeout(resolve, 30));
    const whileHeldElsewhere = harness.streams.length;

    // Act: the lease comes free, then is lost again mid-stream.
    held = true;
    const stream = await streamNumber(harness, 1);
    held = false;
    for (let tries = 0; !stream.cancelled && tries < 100; tries += 1) await new Promise((resolve) => setTimeout(resolve, 2));

    // Assert
    expect(whileHeldElsewhere).toBe(0);
    expect(stream.cancelled).toBe(true);
    expect(harness.states.filter((state) => state === 'waiting-for-lease').length).toBeGreaterThanOrEqual(1);
  });

  it('when it stops, then the stream is cancelled, the lease released and the state is stopped', async () => {
    const harness = subscribe();
    const stream = await streamNumber(harness, 1);

    await harness.subscription.stop();

    expect(stream.cancelled).toBe(true);
    expect(harness.lease.released).toBe(1);
    expect(harness.states.at(-1)).toBe('stopped');
  });

  it('when it stops while the cursor is being read, then no stream opens afterwards and the stop does not wait for one', async () => {
    let readCursor!: () => void;
    const reading = new Promise<void>((resolve) => (readCursor = resolve));
    const harness = subscribe({ cursor: () => reading.then(() => ({})) });
    await new Promise((resolve) => setTimeout(resolve, 10));

    const stopping = harness.subscription.stop();
    readCursor();
    await stopping;

    expect(harness.streams).toHaveLength(0);
    expect(harness.states.at(-1)).toBe('stopped');
  });

  it('backs off with full jitter: from zero up to the base doubled per quiet stream, never past the ceiling', () => {
    expect(backoffMs(0, 1000, 60_000, () => 0.999)).toBe(999);
    expect(backoffMs(3, 1000, 60_000, () => 0.5)).toBe(4000);
    expect(backoffMs(10, 1000, 60_000, () => 1)).toBe(60_000);
    expect(backoffMs(10, 1000, 60_000, () => 0)).toBe(0);
  });
});
