import type { BudgetView, Pacer } from '../jobs/pacer.ts';
import { lastCallAt } from '../store/rate-log.ts';
import type { StoreStats } from '../store/types.ts';
import type { AdminStore } from './admin-store.ts';
import { DELIVERY_KINDS } from './request-schemas.ts';
import type { AdminStats, Quota } from './response-schemas.ts';
import { iso } from './views.ts';

export interface RateBucket {
  pacer: Pacer;
  /** The budget's key (MOMENTUM_RATE_KEY). */
  key: string;
}

/** Counts by kind and state, oldest pending, dead in the last 24 h, pending per priority class, and Momentum's budget. */
export async function adminStats(store: AdminStore, bucket: RateBucket | undefined, now = Date.now()): Promise<AdminStats> {
  const [stats, state, pass] = await Promise.all([store.stats(now), bucket?.pacer.view(bucket.key), store.retention.lastPass()]);
  return {
    at: iso(stats.at),
    counts: stats.counts,
    oldestPending: stats.oldestPending.map((entry) => ({ kind: entry.kind, createdAt: iso(entry.createdAt), ageMs: entry.ageMs })),
    deadLast24h: stats.deadLast24h,
    pendingByPriority: stats.pendingByPriority,
    stored: {
      ...stats.stored,
      oldestEventAt: stats.stored.oldestEventAt === null ? null : iso(stats.stored.oldestEventAt),
      oldestJobAt: stats.stored.oldestJobAt === null ? null : iso(stats.stored.oldestJobAt),
    },
    retention:
      pass === undefined
        ? null
        : { lastPassAt: iso(pass.at), cutoff: iso(pass.cutoff), durationMs: pass.durationMs, removed: { ...pass.removed }, more: pass.more },
    rateLimit:
      state === undefined
        ? null
        : {
            key: state.key,
            tokens: state.remaining,
            capacity: state.capacity,
            windowMs: state.windowMs,
            used: state.used,
            nextFreeAt: iso(state.nextFreeAt),
            blockedUntil: state.blockedUntil === null ? null : iso(state.blockedUntil),
          },
    quota: state === undefined ? { off: true } : quotaOf(state, stats),
  };
}

/**
 * The budget and the backlog waiting for it. Every remap and import draws one call from Momentum's
 * budget, so the backlog is the pending ones (from the same pass over the jobs table as the
 * counts). The ETA is rate-log.ts lastCallAt: the remaining calls go at once, then each further
 * call as soon as the call N before it has been a window W ago (each window of W lets N go), from
 * the slots of the window as they are now, counted from the stats' clock. It counts waiting for
 * the budget only: a delivery waiting for its next retry may go later.
 */
function quotaOf(state: BudgetView, stats: StoreStats): Quota {
  const backlog = stats.counts
    .filter((entry) => entry.state === 'pending' && (DELIVERY_KINDS as readonly string[]).includes(entry.kind))
    .reduce((total, entry) => total + entry.count, 0);
  const limit = { requests: state.capacity, windowMs: state.windowMs };
  const lastAt = lastCallAt(state.times, limit, stats.at, state.blockedUntil, backlog);
  return {
    limit: state.capacity,
    windowSeconds: state.windowMs / 1000,
    usedInWindow: state.used,
    remaining: state.remaining,
    nextSlotAt: iso(state.nextFreeAt),
    blockedUntil: state.blockedUntil === null ? null : iso(state.blockedUntil),
    backlog,
    etaSeconds: backlog === 0 ? 0 : Math.max(0, lastAt - stats.at) / 1000,
  };
}
