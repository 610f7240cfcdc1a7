import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

import type { Logger } from '../core/logger.ts';

/** The singleton leases in the store (ChannelStore implements them). */
export interface Leases {
  /** Takes or extends `name` for `owner` until now + ttlMs when free, expired or already `owner`'s; atomic across instances. */
  tryLease(name: string, owner: string, ttlMs: number, now: number): Promise<boolean>;
  releaseLease(name: string, owner: string): Promise<void>;
}

export interface LeasedUpkeepOptions {
  /** The lease's name: one per provider, so Google's and Microsoft's holders are independent. */
  lease: string;
  leases: Leases;
  logger: Logger;
  /** Creates, renews and stops the provider's channels or subscriptions. */
  maintain(): Promise<void>;
  /** Enqueues the periodic sync of every watched calendar. */
  backstop(): Promise<void>;
  maintainEveryMs: number;
  backstopEveryMs: number;
  owner?: string;
  now?: () => number;
  /** A first round (upkeep and a sync of every calendar, catching what changed while down) at once; default true. */
  runAtStart?: boolean;
}

export interface LeasedUpkeep {
  /** One round now (tests, and the first round at start); false when another instance holds the lease. */
  runOnce(what?: { maintain?: boolean; backstop?: boolean }): Promise<boolean>;
  stop(): Promise<void>;
}

/**
 * Runs calendar watch upkeep and the backstop sync on timers, in one instance at a time: each
 * round takes (or extends) a lease in the store, so with N instances on one database only the
 * holder creates, renews and stops channels or subscriptions; the lease is renewed every third of
 * it while a round runs. A dead holder's lease lapses and another instance takes over.
 */
export function startLeasedUpkeep(options: LeasedUpkeepOptions): LeasedUpkeep {
  const { leases, logger } = options;
  const now = options.now ?? Date.now;
  const owner = options.owner ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  // Outlives a missed round or two, short enough that a crashed holder is replaced within minutes.
  const leaseMs = 3 * Math.min(options.maintainEveryMs, options.backstopEveryMs);
  let stopped = false;

  async function round(what: { maintain?: boolean; backstop?: boolean }): Promise<boolean> {
    if (!(await leases.tryLease(options.lease, owner, leaseMs, now()))) return false;
    // Kept while the round runs: a round creating many subscriptions (Graph validates each
    // synchronously) or waiting on a slow provider can outlast the lease, and another instance
    // taking it meanwhile would create or renew the same channels a second time.
    const keep = setInterval(() => {
      leases.tryLease(options.lease, owner, leaseMs, now()).then(
        (held) => held || logger.warn('calendar upkeep lease lost mid-round', { lease: options.lease }),
        (error: unknown) => logger.warn('calendar upkeep lease not renewed', { lease: options.lease, error: (error as Error).message }),
      );
    }, leaseMs / 3);
    keep.unref();
    try {
      if (what.maintain !== false) await options.maintain();
      if (what.backstop !== false) await options.backstop();
    } finally {
      clearInterval(keep);
    }
    return true;
  }

  // Rounds never overlap: a slow provider makes the next tick wait, not pile up.
  let chain: Promise<unknown> = Promise.resolve();
  const runOnce = (what: { maintain?: boolean; backstop?: boolean } = {}) => {
    const next = chain.then(() => round(what));
    chain = next.catch(() => undefined);
    return next;
  };

  const tick = (what: { maintain?: boolean; backstop?: boolean }) => () => {
    if (stopped) return;
    runOnce(what).catch((error: unknown) => logger.error('calendar upkeep round failed', { lease: options.lease, error: (error as Error).message }));
  };
  if (options.runAtStart !== false) tick({})();
  const maintainTimer = setInterval(tick({ backstop: false }), options.maintainEveryMs);
  const backstopTimer = setInterval(tick({ maintain: false }), options.backstopEveryMs);
  maintainTimer.unref();
  backstopTimer.unref();

  return {
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(maintainTimer);
      clearInterval(backstopTimer);
      await chain;
      // Hand over at once instead of making the next instance wait out the lease.
      await leases.releaseLease(options.lease, owner).catch(() => undefined);
    },
  };
}
