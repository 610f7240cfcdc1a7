import { afterEach, describe, expect, it } from 'vitest';
import { createRateLimiter } from '../../src/jobs/rate-limiter.ts';
import type { Store } from '../../src/store/types.ts';
import { openTestStore } from './support/test-store.ts';

/** A store that fails the test if pacing-off still reaches the database. */
const untouchable = new Proxy({} as Store, {
  get: (_target, name) => () => {
    throw new Error(`pacing off must not call store.${String(name)}`);
  },
});

const stores: Store[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});
const realStore = async () => {
  const store = await openTestStore();
  stores.push(store);
  return store;
};

describe('createRateLimiter', () => {
  it('when pacing is off, then every call may go at once and the store is never asked', async () => {
    const limiter = createRateLimiter(untouchable, undefined);

    const waits = await Promise.all(Array.from({ length: 500 }, () => limiter.take('momentum')));
    await limiter.block('momentum', Date.now() + 60_000);

    expect(new Set(waits)).toEqual(new Set([0]));
    expect(await limiter.take('momentum')).toBe(0);
    expect(await limiter.state('momentum')).toBeUndefined();
  });

  it('when the bucket holds 5 per 2 s, then five calls go at once and the sixth waits one refill interval', async () => {
    let now = 1_000_000;
    const store = await realStore();
    const limiter = createRateLimiter(store, { requests: 5, windowMs: 2_000 }, () => now);

    const first = await Promise.all(Array.from({ length: 5 }, () => limiter.take('momentum')));
    const sixth = await limiter.take('momentum');
    now += 400;
    const afterRefill = await limiter.take('momentum');

    expect(first).toEqual([0, 0, 0, 0, 0]);
    expect(sixth).toBe(400);
    expect(afterRefill).toBe(0);
    expect(await limiter.state('momentum')).toEqual({ tokens: 0, capacity: 5, blockedUntil: null });
  });

  it('when a key is blocked after a 429, then no token is granted until the block ends, refilling only from then, and other keys are unaffected', async () => {
    let now = 1_000_000;
    const store = await realStore();
    const limiter = createRateLimiter(store, { requests: 5, windowMs: 2_000 }, () => now);

    await limiter.block('momentum', now + 30_000);

    expect(await limiter.take('momentum')).toBe(30_000);
    expect(await limiter.take('other-key')).toBe(0);
    expect(await limiter.state('momentum')).toEqual({ tokens: 0, capacity: 5, blockedUntil: now + 30_000 });
    now += 30_000;
    expect(await limiter.take('momentum')).toBe(400);
    now += 400;
    expect(await limiter.take('momentum')).toBe(0);
  });
});
