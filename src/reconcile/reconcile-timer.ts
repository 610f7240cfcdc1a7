import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

import type { Logger } from '../core/logger.ts';
import { startSerialTicks } from '../core/serial-ticks.ts';
import type { ChannelStore } from '../store/channel-store.ts';
import type { AdminReads, JobQueue } from '../store/types.ts';
import { RECONCILE_KEY, reconcileJob, reconcileKind } from './reconcile-job.ts';

export interface ReconcileTimerOptions {
  store: Pick<JobQueue, 'enqueue' | 'lastSucceeded'> & Pick<AdminReads, 'listJobs'>;
  /** The singleton leases (the ChannelStore holds them for every upkeep). */
  leases: Pick<ChannelStore, 'tryLease' | 'releaseLease'>;
  logger: Logger;
  /** MOMENTUM_RECONCILE_INTERVAL. */
  intervalMs: number;
  /** The re-match window: meetings of the last this many days are listed. */
  windowDays: number;
  now?: () => number;
  owner?: string;
}

export interface ReconcileTimer {
  /** One tick now: starts a walk when one is due; false when another instance holds the lease or none is due. */
  tick(): Promise<boolean>;
  stop(): Promise<void>;
}

const LEASE = 'momentum-reconcile';
const DAY_MS = 86_400_000;
// Checked this often (or each interval when shorter), so a restart never skips a walk for long.
const CHECK_EVERY_MS = 60_000;

/**
 * Starts a reconcile walk every MOMENTUM_RECONCILE_INTERVAL, in one instance at a time: each tick
 * takes (or extends) a lease in the store, so with several instances on one PostgreSQL only the
 * holder starts walks. A walk is due when none is under way, no page ended dead within an interval,
 * and the last page of the last walk ended an interval ago (or none ever ran): a restart neither
 * repeats a walk nor skips one.
 */
export function startReconcileTimer(options: ReconcileTimerOptions): ReconcileTimer {
  const { store, leases, logger } = options;
  const now = options.now ?? Date.now;
  const owner = options.owner ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const checkEvery = Math.min(options.intervalMs, CHECK_EVERY_MS);

  async function due(at: number): Promise<boolean> {
    // A walk under way (a page pending or running) is never doubled.
    if ((await store.listJobs({ kinds: [reconcileKind.name], states: ['pending', 'running'], limit: 1 })).length > 0) return false;
    // A walk whose page ended dead (a key that cannot list, an answer that cannot be read) waits an
    // interval too: started again at the next check, it would spend a call a minute for ever.
    const failed = await store.listJobs({ kinds: [reconcileKind.name], states: ['dead'], updatedSince: at - options.intervalMs, limit: 1 });
    if (failed.length > 0) return false;
    const last = await store.lastSucceeded(reconcileKind.name, RECONCILE_KEY);
    return last === undefined || at - last.updatedAt >= options.intervalMs;
  }

  async function round(): Promise<boolean> {
    const at = now();
    if (!(await leases.tryLease(LEASE, owner, 3 * checkEvery, at)) || !(await due(at))) return false;
    await store.enqueue([reconcileJob({ from: at - options.windowDays * DAY_MS, to: at, pageNumber: 1 })]);
    logger.info('reconcile walk started', { windowDays: options.windowDays });
    return true;
  }

  // Ticks never overlap: a slow store makes the next wait, not pile up.
  const ticks = startSerialTicks(round, { everyMs: checkEvery, now: true, logger, failure: 'reconcile tick failed' });

  return {
    tick: ticks.tick,
    async stop() {
      await ticks.stop();
      await leases.releaseLease(LEASE, owner).catch(() => undefined);
    },
  };
}
