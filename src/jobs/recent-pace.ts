/**
 * How many jobs this worker finished lately, up to a cap: the claim-ahead depth. Claiming ahead
 * only as many jobs as finished in the last window keeps a job from waiting in a worker's hands
 * (leased, shown as running, out of reach of coalescing and of an operator's cancel) much longer
 * than that window: with a hanging upstream nothing finishes, and nothing is claimed ahead.
 */
export interface RecentPace {
  /** A job finished now. */
  note(): void;
  /** Jobs finished within the window, at most the cap. */
  count(): number;
}

export function createRecentPace(cap: number, windowMs: number, clock: () => number = () => performance.now()): RecentPace {
  // The last `cap` finish times, oldest overwritten first: counting past the cap is never needed.
  const times = new Array<number>(cap).fill(-Infinity);
  let next = 0;
  return {
    note() {
      if (cap === 0) return;
      times[next] = clock();
      next = (next + 1) % cap;
    },
    count() {
      const since = clock() - windowMs;
      let recent = 0;
      for (const time of times) if (time >= since) recent += 1;
      return recent;
    },
  };
}
