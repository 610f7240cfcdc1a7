import type { Pacer } from '../jobs/pacer.ts';
import type { AdminStore } from './admin-store.ts';
import type { AdminStats } from './response-schemas.ts';
import { iso } from './views.ts';

export interface RateBucket {
  pacer: Pacer;
  /** The budget's key (MOMENTUM_RATE_KEY). */
  key: string;
}

/** Counts by kind and state, oldest pending, dead in the last 24 h, pending per priority class, and Momentum's budget. */
export async function adminStats(store: AdminStore, bucket: RateBucket | undefined, now = Date.now()): Promise<AdminStats> {
  const [stats, state] = await Promise.all([store.stats(now), bucket?.pacer.view(bucket.key)]);
  return {
    at: iso(stats.at),
    counts: stats.counts,
    oldestPending: stats.oldestPending.map((entry) => ({ kind: entry.kind, createdAt: iso(entry.createdAt), ageMs: entry.ageMs })),
    deadLast24h: stats.deadLast24h,
    pendingByPriority: stats.pendingByPriority,
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
  };
}
