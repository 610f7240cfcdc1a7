import type { FetchResponse, FetchStream, ReceivedEvent, ReplayPreset, StreamEnd } from './stream-types.ts';

/**
 * One Subscribe stream from its first request to its end (docs/protocols.md, Pub/Sub):
 * - flow control: it asks for `batch` events, and asks again only once the server owes none
 *   (`pending_num_requested`) and every event received has been stored (`store` resolved: the
 *   events and their replay id are durable), so the bridge never holds more than one batch it has
 *   not stored;
 * - a keepalive (a response with no events) hands its replay id to `keepalive` only when nothing
 *   received is waiting to be stored: a keepalive's id is past every event sent so far, so saving
 *   it before they are stored would skip them after a restart;
 * - a watchdog: a stream silent for `silenceMs` (no events, no keepalive; the server sends one
 *   within 270 s while events are asked for) is cancelled, since streams have gone quiet without
 *   an error.
 * Batches are stored one after another in the order received (replay ids follow commit order).
 */

export interface SessionStart {
  preset: ReplayPreset;
  replayId?: Buffer;
}

export interface SessionOptions {
  stream: FetchStream;
  topic: string;
  start: SessionStart;
  /** Events asked for at a time, at most 100. */
  batch: number;
  /** Stores a batch durably with the replay id of its last event; a rejection ends the session. */
  store(events: ReceivedEvent[]): Promise<void>;
  /** Saves a keepalive's replay id (called only with nothing in flight). */
  keepalive(replayId: Buffer): Promise<void>;
  silenceMs: number;
  /** Called with every response, for the operator's "last event" and "last keepalive". */
  onResponse?(response: FetchResponse): void;
}

/** How a session ended, with the events it received and those it stored (a failed store stores none of its batch). */
export type SessionEnd = (
  | { reason: 'closed' }
  | { reason: 'error'; end: Extract<StreamEnd, { kind: 'error' }> }
  | { reason: 'silent' }
  | { reason: 'store-failed'; error: Error }
  | { reason: 'stopped' }
) & { received: number; stored: number };

/** A session end before its counts are added (distributes over the union). */
type WithoutCounts<End> = End extends SessionEnd ? Omit<End, 'received' | 'stored'> : never;
type EndReason = WithoutCounts<SessionEnd>;

export interface Session {
  /** Resolves once the stream ended and every batch received before its end was stored (or failed). */
  readonly ended: Promise<SessionEnd>;
  /** Cancels the stream; batches already received are still stored. */
  stop(): void;
}

export function runSession(options: SessionOptions): Session {
  const { stream, batch } = options;
  let outstanding = 0;
  let waitingToStore = 0;
  let received = 0;
  let stored = 0;
  let chain: Promise<void> = Promise.resolve();
  let finished = false;
  // After a failed store nothing later is stored: replay ids must be stored in order. A store that
  // fails after the stream ended (the server closed it while the store ran) still decides the end.
  let failed: Error | undefined;
  let watchdog: NodeJS.Timeout | undefined;
  let settle!: (end: SessionEnd) => void;
  const ended = new Promise<SessionEnd>((resolve) => (settle = resolve));

  // The end waits for the stores already queued: a session reports only once what it received is durable.
  const finish = (end: EndReason) => {
    if (finished) return;
    finished = true;
    clearTimeout(watchdog);
    void chain.then(() => settle({ ...(failed ? { reason: 'store-failed', error: failed } : end), received, stored } as SessionEnd));
  };
  const ask = () => {
    outstanding += batch;
    stream.write({ topicName: options.topic, numRequested: batch });
  };
  const armWatchdog = () => {
    clearTimeout(watchdog);
    watchdog = setTimeout(() => {
      stream.cancel();
      finish({ reason: 'silent' });
    }, options.silenceMs);
    watchdog.unref();
  };

  stream.onResponse((response) => {
    if (finished) return;
    armWatchdog();
    options.onResponse?.(response);
    const events = response.events;
    // What the server still owes, as it says: responses need not match requests, and a count kept
    // here alone could wait for events the server will never send.
    outstanding = Math.max(0, response.pendingNumRequested ?? outstanding - events.length);
    if (events.length === 0) {
      const replayId = response.latestReplayId;
      chain = chain.then(async () => {
        if (failed || finished || waitingToStore > 0) return;
        if (replayId.length > 0) await options.keepalive(replayId);
        if (outstanding === 0) ask();
      });
      chain = chain.catch((error: unknown) => fail(error));
      return;
    }
    received += events.length;
    waitingToStore += events.length;
    chain = chain
      .then(async () => {
        if (failed) return;
        await options.store(events);
        stored += events.length;
        waitingToStore -= events.length;
        if (!finished && outstanding === 0 && waitingToStore === 0) ask();
      })
      .catch((error: unknown) => fail(error));
  });
  const fail = (error: unknown) => {
    if (failed) return;
    failed = error instanceof Error ? error : new Error(String(error));
    if (finished) return;
    stream.cancel();
    finish({ reason: 'store-failed', error: failed });
  };
  stream.onEnd((end) => {
    finish(end.kind === 'closed' ? { reason: 'closed' } : { reason: 'error', end });
  });

  stream.write({
    topicName: options.topic,
    replayPreset: options.start.preset,
    ...(options.start.replayId === undefined ? {} : { replayId: options.start.replayId }),
    numRequested: batch,
  });
  outstanding = batch;
  armWatchdog();

  return {
    ended,
    stop() {
      if (finished) return;
      stream.cancel();
      finish({ reason: 'stopped' });
    },
  };
}
