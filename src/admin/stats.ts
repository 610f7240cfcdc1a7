import type { RateLimiter } from '../jobs/types.ts';
import type { AdminStore } from './admin-store.ts';
import type { AdminStats } from './response-schemas.ts';
import { iso } from './views.ts';

export interface RateBucket {
  limiter: RateLimiter;
  /** The bucket's key (MOMENTUM_RATE_KEY). */
  key: string;
}

/** Counts by kind and state, oldest pending, dead in the last 24 h, and the Momentum bucket (issue 5). */
export async function adminStats(store: AdminStore, bucket: RateBucket | undefined, now = Date.now()): Promise<AdminStats> {
  const [stats, state] = await Promise.all([store.stats(now), bucket?.limiter.state(bucket.key)]);
  return {
    at: iso(stats.at),
    counts: stats.counts,
    oldestPending: stats.oldestPending.map((entry) => ({ kind: entry.kind, createdAt: iso(entry.createdAt), ageMs: entry.ageMs })),
    deadLast24h: stats.deadLast24h,
    rateLimit:
      bucket === undefined || state === undefined
        ? null
        : { key: bucket.key, tokens: state.tokens, capacity: state.capacity, blockedUntil: state.blockedUntil === null ? null : iso(state.blockedUntil) },
  };
}
