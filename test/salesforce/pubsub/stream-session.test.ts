import { describe, expect, it } from 'vitest';

import { runSession, type SessionOptions } from '../../../src/salesforce/pubsub/stream-session.ts';
import type { ReceivedEvent } from '../../../src/salesforce/pubsub/stream-types.ts';
import { events, keepaliveAt, replayId, scriptedStream, settle } from './support/scripted-stream.ts';

/*
 * One Subscribe stream's flow control, keepalives and watchdog (docs/protocols.md, Pub/Sub),
 * against a stream played by the test.
 */

function session(overrides: Partial<SessionOptions> = {}) {
  const stream = scriptedStream();
  const stored: ReceivedEvent[][] = [];
  const keepalives: Buffer[] = [];
  const options: SessionOptions = {
    stream,
    topic: '/data/EventChangeEvent',
    start: { preset: 'CUSTOM', replayId: replayId(1) },
    batch: 3,
    silenceMs: 60_000,
    store: async (batch) => void stored.push(batch),
    keepalive: async (id) => void keepalives.push(id),
    ...overrides,
  };
  const running = runSession(options);
  return { stream, stored, keepalives, running };
}

describe('a Pub/Sub stream session', () => {
  it('when it starts, then its first request names the topic, the preset, the stored replay id and the batch size', () => {
    const { stream } = session();

    expect(stream.requests).toEqual([{ topicName: '/data/EventChangeEvent', replayPreset: 'CUSTOM', replayId: replayId(1), numRequested: 3 }]);
  });

  it('when the events asked for arrive, then more are asked for only after every one of them is stored', async () => {
    // Arrange: a store that waits until the test lets it finish.
    const stream = scriptedStream();
    const stored: string[] = [];
    let finishStore!: () => void;
    runSession({
      stream,
      topic: 't',
      start: { preset: 'LATEST' },
      batch: 3,
      silenceMs: 60_000,
      store: (batch) =>
        new Promise<void>((resolve) => {
          finishStore = () => {
            stored.push(...batch.map((event) => event.id));
            resolve();
          };
        }),
      keepalive: async () => undefined,
    });

    // Act: two events, then the third; the store is still running.
    stream.respond({ events: events(2, 2), latestReplayId: replayId(3) });
    await settle();
    finishStore();
    await settle();
    const askedAfterTwo = stream.requests.length;
    stream.respond({ events: events(4, 1), latestReplayId: replayId(4) });
    await settle();
    const askedWhileStoring = stream.requests.length;
    finishStore();
    await settle();

    // Assert: nothing more asked for while fewer than three had arrived, or while the third was being stored.
    expect(askedAfterTwo).toBe(1);
    expect(askedWhileStoring).toBe(1);
    expect(stored).toEqual(['e2', 'e3', 'e4']);
    expect(stream.requests.at(-1)).toEqual({ topicName: 't', numRequested: 3 });
  });

  it('when a keepalive arrives with nothing waiting to be stored, then its replay id is saved; while a batch is being stored, it is not', async () => {
    // Arrange
    const stream = scriptedStream();
    const keepalives: string[] = [];
    let finishStore: (() => void) | undefined;
    runSession({
      stream,
      topic: 't',
      start: { preset: 'LATEST' },
      batch: 5,
      silenceMs: 60_000,
      store: () => new Promise<void>((resolve) => (finishStore = resolve)),
      keepalive: async (id) => void keepalives.push(id.toString('hex')),
    });

    // Act: a keepalive while idle; an event; a keepalive while it is being stored; then the store ends.
    stream.respond(keepaliveAt(7));
    await settle();
    stream.respond({ events: events(8, 1), latestReplayId: replayId(8) });
    stream.respond(keepaliveAt(9));
    await settle();
    finishStore!();
    await settle();

    // Assert: the second keepalive was queued behind the store and found nothing in flight by then.
    expect(keepalives).toEqual([replayId(7).toString('hex'), replayId(9).toString('hex')]);
  });

  it('when the server says it owes nothing more though fewer events came than asked, then more are asked for once those are stored, not after a silence', async () => {
    // Arrange
    const { stream } = session();

    // Act: three asked for; two arrive with nothing more owed; then a keepalive owes nothing either.
    stream.respond({ events: events(2, 2), latestReplayId: replayId(3), pendingNumRequested: 0 });
    await settle();
    stream.respond({ ...keepaliveAt(4), pendingNumRequested: 3 });
    await settle();

    // Assert: one more request, at once, and none for the keepalive that still has three owed.
    expect(stream.requests.map((request) => request.numRequested)).toEqual([3, 3]);
  });

  it('when a keepalive comes in while a batch received after it still waits to be stored, then its id is not saved', async () => {
    // Arrange: stores that finish when the test says.
    const finishes: Array<() => void> = [];
    const { stream, keepalives } = session({ store: () => new Promise<void>((resolve) => finishes.push(resolve)) });

    // Act: a batch, a keepalive, a second batch; then the first batch is stored, and the keepalive's turn comes.
    stream.respond({ events: events(2, 1), latestReplayId: replayId(2) });
    stream.respond(keepaliveAt(3));
    stream.respond({ events: events(4, 1), latestReplayId: replayId(4) });
    await settle();
    finishes[0]!();
    await settle();

    // Assert: the second batch's store has begun, and the keepalive was not saved before it.
    expect(finishes).toHaveLength(2);
    expect(keepalives).toEqual([]);
  });

  it('when the server closes the stream while a batch is being stored and that store then fails, then the session ends store-failed, not closed', async () => {
    // Arrange
    let failStore!: (error: Error) => void;
    const { stream, running } = session({ store: () => new Promise<void>((_, reject) => (failStore = reject)) });
    stream.respond({ events: events(2, 1), latestReplayId: replayId(2) });
    await settle();

    // Act
    stream.end({ kind: 'closed' });
    failStore(new Error('REQUEST_LIMIT_EXCEEDED'));
    const end = await running.ended;

    // Assert
    expect(end).toMatchObject({ reason: 'store-failed', received: 1, stored: 0, error: { message: 'REQUEST_LIMIT_EXCEEDED' } });
  });

  it('when the stream is silent past the watchdog, then it is cancelled and the session ends silent', async () => {
    const { stream, running } = session({ silenceMs: 20 });

    const end = await running.ended;

    expect(end).toEqual({ reason: 'silent', received: 0, stored: 0 });
    expect(stream.cancelled).toBe(true);
  });

  it('when a store fails, then the stream is cancelled, nothing after it is stored, and the session ends store-failed', async () => {
    // Arrange: the first store fails.
    const stream = scriptedStream();
    const stored: string[] = [];
    let calls = 0;
    const running = runSession({
      stream,
      topic: 't',
      start: { preset: 'LATEST' },
      batch: 1,
      silenceMs: 60_000,
      store: async (batch) => {
        calls += 1;
        if (calls === 1) throw new Error('disk full');
        stored.push(...batch.map((event) => event.id));
      },
      keepalive: async () => undefined,
    });

    // Act
    stream.respond({ events: events(2, 1), latestReplayId: replayId(2) });
    stream.respond({ events: events(3, 1), latestReplayId: replayId(3) });
    const end = await running.ended;

    // Assert
    expect(end).toMatchObject({ reason: 'store-failed', received: 2, error: { message: 'disk full' } });
    expect(stored).toEqual([]);
    expect(stream.cancelled).toBe(true);
  });

  it('when the server ends the stream with an error, then the session reports its status and error code once what arrived is stored', async () => {
    const { stream, stored, running } = session();

    stream.respond({ events: events(2, 2), latestReplayId: replayId(3) });
    stream.end({ kind: 'error', code: 3, errorCode: 'sfdc.platform.eventbus.grpc.subscription.fetch.replayid.corrupted', message: 'corrupted' });
    const end = await running.ended;

    expect(end).toMatchObject({ reason: 'error', received: 2, stored: 2, end: { code: 3, errorCode: expect.stringContaining('replayid.corrupted') } });
    expect(stored.flat().map((event) => event.id)).toEqual(['e2', 'e3']);
  });
});
