import { describe, expect, it } from 'vitest';
import { type StoreHarness, uniqueKey, useFixture } from './conformance-fixture.ts';

const CAPACITY = 2;
const WINDOW_MS = 1000; // 2 tokens per second: one token every 500 ms
const START = 1_000_000;

export function bucketConformance(harness: StoreHarness): void {
  describe('token bucket', () => {
    const fixture = useFixture(harness);

    it('when a bucket is new, then it is full', async () => {
      const { store } = await fixture.fresh();

      expect(await store.bucketState(uniqueKey('bucket'), CAPACITY, WINDOW_MS, START)).toEqual({ tokens: CAPACITY, blockedUntil: null });
    });

    it('when the tokens are used up, then the wait is the refill time and tokens come back evenly', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('bucket');

      const waits = [
        await store.takeToken(key, CAPACITY, WINDOW_MS, START),
        await store.takeToken(key, CAPACITY, WINDOW_MS, START),
        await store.takeToken(key, CAPACITY, WINDOW_MS, START),
        await store.takeToken(key, CAPACITY, WINDOW_MS, START + 250),
      ];
      const afterRefill = await store.takeToken(key, CAPACITY, WINDOW_MS, START + 500);

      expect(waits).toEqual([0, 0, 500, 250]);
      expect(afterRefill).toBe(0);
      expect(await store.bucketState(key, CAPACITY, WINDOW_MS, START + 500)).toEqual({ tokens: 0, blockedUntil: null });
      expect(await store.bucketState(key, CAPACITY, WINDOW_MS, START + 60_000)).toEqual({ tokens: CAPACITY, blockedUntil: null });
    });

    it('when a bucket is blocked after a 429, then no token is given until the block ends and refill starts from there', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('bucket');
      const until = START + 10_000;

      await store.blockBucket(key, until);

      expect(await store.bucketState(key, CAPACITY, WINDOW_MS, START)).toEqual({ tokens: 0, blockedUntil: until });
      expect(await store.takeToken(key, CAPACITY, WINDOW_MS, START + 4000)).toBe(6000);
      expect(await store.takeToken(key, CAPACITY, WINDOW_MS, until)).toBe(500);
      expect(await store.takeToken(key, CAPACITY, WINDOW_MS, until + 500)).toBe(0);
      expect(await store.bucketState(key, CAPACITY, WINDOW_MS, until + 500)).toEqual({ tokens: 0, blockedUntil: null });
    });

    it('when many takes race on one bucket, then exactly its capacity is granted', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('bucket');

      const waits = await Promise.all(Array.from({ length: 20 }, () => store.takeToken(key, 5, 60_000, START)));

      expect(waits.filter((wait) => wait === 0)).toHaveLength(5);
      expect(waits.filter((wait) => wait > 0)).toHaveLength(15);
    });
  });
}
