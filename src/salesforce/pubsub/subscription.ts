import { setTimeout as delay } from 'node:timers/promises';

import { runSession, type Session, type SessionEnd, type SessionStart } from './stream-session.ts';
import { type FetchResponse, type FetchStream, GRPC_STATUS, type ReceivedEvent, type ReplayPreset } from './stream-types.ts';

/**
 * One topic's subscription for as long as the bridge runs (docs/protocols.md, Pub/Sub): stream
 * after stream, each resuming from the replay id stored with the last events stored (CUSTOM
 * preset), or from SALESFORCE_PUBSUB_START when none is stored. Why a stream ended decides the next:
 * - a replay id Salesforce calls corrupted or invalid (outside its 72-hour retention, or from
 *   another org) is never asked for again: the next stream starts from EARLIEST, and a backstop
 *   reads by SOQL what changed since the last stored commit, for what fell out of retention;
 * - UNAUTHENTICATED: the token is refreshed and the channel rebuilt, then at once a new stream;
 * - UNAVAILABLE, INTERNAL, a closed or a silent stream, a failed store: a new stream after a
 *   backoff with full jitter, growing with each stream in a row that stored nothing. Counting
 *   stored events, not received ones: a batch that cannot be stored (a REST read refused, the
 *   database full) comes again with every new stream, and each delivery counts against the org's
 *   daily event allocation, so it must not be fetched again every second.
 * Only the holder of the subscription's lease streams: with several instances another takes over
 * from the stored replay id once the holder stops renewing it.
 */

export interface StoredCursor {
  replayId?: Buffer;
  /** The commit time of the newest event stored, epoch ms: where a backstop reads from. */
  commitTimestamp?: number;
}

export type SubscriptionState = 'waiting-for-lease' | 'subscribed' | 'resubscribing' | 'stopped';

export interface SubscriptionOptions {
  topic: string;
  batch: number;
  startPreset: Extract<ReplayPreset, 'LATEST' | 'EARLIEST'>;
  silenceMs: number;
  openStream(): FetchStream;
  cursor(): Promise<StoredCursor>;
  store(events: ReceivedEvent[]): Promise<void>;
  keepalive(replayId: Buffer): Promise<void>;
  /** Reads by SOQL what changed since `since` (epoch ms), for the gap a lost replay id leaves. */
  backstop(since: number | undefined): Promise<void>;
  refreshAuth(): Promise<void>;
  /** Takes or renews the lease; false: another instance holds it. */
  holdLease(): Promise<boolean>;
  releaseLease(): Promise<void>;
  onState(state: SubscriptionState, detail?: { error?: string; end?: SessionEnd }): void;
  onResponse?(response: FetchResponse): void;
  backoff?: { baseMs: number; maxMs: number };
  /** Told of each wait before a new stream: its place in the row of streams that stored nothing, and its length. */
  onBackoff?(attempt: number, ms: number): void;
  /** How often a waiting instance asks for the lease, and the holder renews it between streams. */
  leaseEveryMs?: number;
  random?: () => number;
}

export interface Subscription {
  stop(): Promise<void>;
  /** Resolves once the running loop has ended (for tests and shutdown). */
  readonly done: Promise<void>;
}

const REPLAY_ID_REFUSED = /replayid\.(corrupted|validation\.failed)/;

/** What the next stream does after `end`. */
export function nextStep(end: SessionEnd): 'earliest-and-backstop' | 'refresh-auth' | 'backoff' | 'at-once' | 'stop' {
  if (end.reason === 'stopped') return 'stop';
  if (end.reason === 'error') {
    if (REPLAY_ID_REFUSED.test(end.end.errorCode ?? '') || (end.end.code === GRPC_STATUS.INVALID_ARGUMENT && REPLAY_ID_REFUSED.test(end.end.message)))
      return 'earliest-and-backstop';
    if (end.end.code === GRPC_STATUS.UNAUTHENTICATED) return 'refresh-auth';
  }
  // A stream whose events were stored ended as streams do (a server restart, a closed stream): resume at once.
  if (end.reason === 'closed' && end.stored > 0) return 'at-once';
  return 'backoff';
}

/** Full jitter: anywhere from zero to the exponential ceiling, so instances restarted together spread out. */
export const backoffMs = (attempt: number, base: number, max: number, random: () => number): number =>
  Math.floor(random() * Math.min(max, base * 2 ** attempt));

export function startSubscription(options: SubscriptionOptions): Subscription {
  const backoff = options.backoff ?? { baseMs: 1000, maxMs: 60_000 };
  const leaseEvery = options.leaseEveryMs ?? 10_000;
  const random = options.random ?? Math.random;
  const abort = new AbortController();
  let stopped = false;
  let session: Session | undefined;
  let fromEarliest = false;
  let quietInARow = 0;
  let refreshedInARow = 0;

  const pause = (ms: number) => delay(ms, undefined, { signal: abort.signal }).catch(() => undefined);

  async function startOf(): Promise<SessionStart> {
    if (fromEarliest) return { preset: 'EARLIEST' };
    const { replayId } = await options.cursor();
    return replayId === undefined ? { preset: options.startPreset } : { preset: 'CUSTOM', replayId };
  }

  async function once(): Promise<void> {
    if (!(await options.holdLease())) {
      options.onState('waiting-for-lease');
      await pause(leaseEvery);
      return;
    }
    const start = await startOf();
    // stop() may have come while the lease or the cursor was read: no stream would be there to cancel.
    if (stopped) return;
    options.onState('subscribed');
    const current = runSession({
      stream: options.openStream(),
      topic: options.topic,
      start,
      batch: options.batch,
      silenceMs: options.silenceMs,
      store: options.store,
      keepalive: options.keepalive,
      ...(options.onResponse ? { onResponse: options.onResponse } : {}),
    });
    session = current;
    // A stream lasts hours: the lease is renewed while it runs, and a lost lease ends it (another instance resumes).
    const renew = setInterval(() => {
      options.holdLease().then(
        (held) => held || current.stop(),
        () => current.stop(),
      );
    }, leaseEvery);
    renew.unref();
    const end = await current.ended.finally(() => clearInterval(renew));
    session = undefined;
    if (end.stored > 0) {
      fromEarliest = false;
      quietInARow = 0;
    }
    const step = nextStep(end);
    if (stopped) return;
    options.onState('resubscribing', { end, ...(end.reason === 'error' ? { error: end.end.message } : {}) });
    if (step === 'stop') return;
    if (step === 'earliest-and-backstop') {
      fromEarliest = true;
      await options.backstop((await options.cursor()).commitTimestamp);
      return;
    }
    if (step === 'refresh-auth') {
      // A refreshed token refused again is not retried at once: the org may have revoked the app.
      if (refreshedInARow > 0) await backOff();
      refreshedInARow += 1;
      await options.refreshAuth();
      return;
    }
    refreshedInARow = 0;
    if (step === 'at-once') return;
    await backOff();
  }

  async function backOff(): Promise<void> {
    const ms = backoffMs(quietInARow, backoff.baseMs, backoff.maxMs, random);
    options.onBackoff?.(quietInARow, ms);
    await pause(ms);
    quietInARow += 1;
  }

  const done = (async () => {
    while (!stopped) {
      try {
        await once();
      } catch (error) {
        // A failed step (the store, a token, a backstop) is retried like a failed stream.
        options.onState('resubscribing', { error: (error as Error).message });
        await backOff();
      }
    }
    await options.releaseLease().catch(() => undefined);
    options.onState('stopped');
  })();

  return {
    done,
    async stop() {
      stopped = true;
      abort.abort();
      session?.stop();
      await done;
    },
  };
}
