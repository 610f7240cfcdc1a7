import { busiestWindow } from '../../src/store/rate-log.ts';

/**
 * What a pacing test measures at the upstream, from the arrival times of the calls it accepted:
 * the busiest interval of length W anywhere (what a strict sliding-window limit counts), and how
 * full each consecutive window of length W was, counted from the first call (what a fixed-window
 * limit counts, and how much of the budget the bridge used).
 */
export interface PacingFigures {
  calls: number;
  /** The most calls any interval of length W held. */
  busiest: number;
  /** Calls per consecutive window [first + kW, first + (k + 1)W). */
  perWindow: number[];
  /**
   * The windows after the first that ended before the last call: while the backlog lasted, each
   * could have carried N. Their fill in % of N.
   */
  fullWindowFillPct: number[];
  /** From the first call to the last. */
  spanMs: number;
}

export function pacingFigures(arrivals: readonly number[], limit: { requests: number; windowMs: number }): PacingFigures {
  const times = [...arrivals].sort((a, b) => a - b);
  if (times.length === 0) return { calls: 0, busiest: 0, perWindow: [], fullWindowFillPct: [], spanMs: 0 };
  const first = times[0] as number;
  const last = times.at(-1) as number;
  const perWindow: number[] = [];
  for (const at of times) {
    const index = Math.floor((at - first) / limit.windowMs);
    while (perWindow.length <= index) perWindow.push(0);
    perWindow[index] = (perWindow[index] as number) + 1;
  }
  const full = perWindow.filter((_count, k) => k >= 1 && first + (k + 1) * limit.windowMs <= last);
  return {
    calls: times.length,
    busiest: busiestWindow(times, limit.windowMs),
    perWindow,
    fullWindowFillPct: full.map((count) => Math.round((count / limit.requests) * 1000) / 10),
    spanMs: last - first,
  };
}

/** `20/3s`, the MOMENTUM_RATE_LIMIT spelling of a limit. */
export const rateLimitSetting = (limit: { requests: number; windowMs: number }) => `${limit.requests}/${limit.windowMs}ms`;
