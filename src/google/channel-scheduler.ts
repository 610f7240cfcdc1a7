import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

import type { Logger } from '../core/logger.ts';
import type { ChannelStore } from '../store/channel-store.ts';
import type { JobQueue } from '../store/types.ts';
import type { ChannelManager } from './channels.ts';
import { enqueueBackstopSyncs } from './sync-jobs.ts';

export const CHANNEL_LEASE = 'google-channels';

export interface GoogleSchedulerOptions {
  manager: ChannelManager;
  channels: ChannelStore;
  jobs: Pick<JobQueue, 'enqueue'>;
  logger: Logger;
  /** How often channels are checked for creation and renewal. */
  maintainEveryMs?: number;
  /** GOOGLE_BACKSTOP_SYNC. */
  backstopEveryMs: number;
  owner?: string;
  now?: () => number;
  /** A first round (upkeep + a sync of every calendar, catching changes made while down) at once; default true. */
  runAtStart?: boolean;
}

export interface GoogleScheduler {
  /** One round now (tests, and the first round at start); false when another instance holds the lease. */
  runOnce(what?: { maintain?: boolean; backstop?: boolean }): Promise<boolean>;
  stop(): Promise<void>;
}

/**
 * Runs channel upkeep and the backstop sync on timers, in one instance at a time: each round takes
 * (or extends) a lease in the store, so with N instances on one database only the holder creates,
 * renews and stops channels. A dead holder's lease lapses and another instance takes over.
 */
export function startGoogleScheduler(options: GoogleSchedulerOptions): GoogleScheduler {
  const { manager, channels, logger } = options;
  const now = options.now ?? Date.now;
  const owner = options.owner ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const maintainEveryMs = options.maintainEveryMs ?? 60_000;
  // Outlives a missed round or two, short enough that a crashed holder is replaced within minutes.
  const leaseMs = 3 * Math.min(maintainEveryMs, options.backstopEveryMs);
  let stopped = false;

  async function round(what: { maintain?: boolean; backstop?: boolean }): Promise<boolean> {
    if (!(await channels.tryLease(CHANNEL_LEASE, owner, leaseMs, now()))) return false;
    if (what.maintain !== false) {
      const counts = await manager.maintain();
      if (counts.created + counts.renewed + counts.stopped + counts.failed > 0) logger.info('google channels maintained', counts);
    }
    if (what.backstop !== false) {
      const jobs = await enqueueBackstopSyncs(channels, options.jobs);
      logger.debug('google backstop syncs enqueued', { jobs: jobs.length });
    }
    return true;
  }

  // Rounds never overlap: a slow Google makes the next tick wait, not pile up.
  let chain: Promise<unknown> = Promise.resolve();
  const runOnce = (what: { maintain?: boolean; backstop?: boolean } = {}) => {
    const next = chain.then(() => round(what));
    chain = next.catch(() => undefined);
    return next;
  };

  const tick = (what: { maintain?: boolean; backstop?: boolean }) => () => {
    if (stopped) return;
    runOnce(what).catch((error: unknown) => logger.error('google scheduler round failed', { error: (error as Error).message }));
  };
  if (options.runAtStart !== false) tick({})();
  const maintainTimer = setInterval(tick({ backstop: false }), maintainEveryMs);
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
      await channels.releaseLease(CHANNEL_LEASE, owner).catch(() => undefined);
    },
  };
}
