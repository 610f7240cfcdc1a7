import type { Store } from '../store/types.ts';
import type { RateLimiter } from './types.ts';

/** MOMENTUM_RATE_LIMIT parsed: `requests` per `windowMs`. */
export interface RateLimit {
  requests: number;
  windowMs: number;
}

export type BucketStore = Pick<Store, 'takeToken' | 'blockBucket' | 'bucketState'>;

/**
 * A token bucket per upstream key, kept in the store so every instance on one database shares
 * one budget (protocols.md §1: 100 requests per 15 minutes per API key, over all endpoints).
 * `undefined` is MOMENTUM_RATE_LIMIT=off: every call may go at once.
 */
export function createRateLimiter(store: BucketStore, limit: RateLimit | undefined, now: () => number = Date.now): RateLimiter {
  if (limit === undefined) {
    return {
      take: async () => 0,
      // Pacing is off: a 429 still delays that job through its Retry-After, but blocks nothing else.
      block: async () => {},
      state: async () => undefined,
    };
  }
  const { requests, windowMs } = limit;
  return {
    take: (key) => store.takeToken(key, requests, windowMs, now()),
    block: (key, untilMs) => store.blockBucket(key, untilMs),
    state: async (key) => ({ ...(await store.bucketState(key, requests, windowMs, now())), capacity: requests }),
  };
}
