import { describe, expect, it } from 'vitest';

import { arrivals } from '../../bench/lib/arrivals.ts';
import { rssOf } from '../../bench/pubsub/rss.ts';

describe('bench:pubsub helpers', () => {
  it("when a process's memory is read from /proc, then its resident set is positive and its high-water mark at least as large", () => {
    const { rss, peak } = rssOf(process.pid);

    expect(rss).toBeGreaterThan(10 * 2 ** 20);
    expect(peak).toBeGreaterThanOrEqual(rss);
  });

  it('when the process is gone, then its memory reads as NaN, never a made-up number', () => {
    expect(rssOf(2 ** 22 + 1)).toEqual({ rss: Number.NaN, peak: Number.NaN });
  });

  it('when a remap arrives after the wait began, then the wait answers its arrival time, and a second arrival of the title counts as a duplicate', async () => {
    const remaps = arrivals();
    const waiting = remaps.of('Kickoff', 1_000);

    remaps.record('Kickoff', 42);
    remaps.record('Kickoff', 43);

    expect(await waiting).toBe(42);
    expect(remaps.duplicates()).toBe(1);
    expect(await remaps.of('Never', 10)).toBeUndefined();
  });
});
