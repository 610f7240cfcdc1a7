/**
 * Pacing arithmetic over a log of call times, shared by both engines: each engine reads the log of
 * one budget, asks these functions how many calls may go, and writes one slot per call it lets go
 * inside the same transaction (serialised across instances), so instances share one budget.
 *
 * Momentum's limit is N calls per window W per API key, fixed or sliding (docs: Momentum limits).
 * A log guarantees the stricter of the two: no interval of length W, wherever it starts, ever holds
 * more than N calls, including right after an idle spell, across a restart and after a block ends.
 * (A token bucket that starts full and refills evenly lets up to 2N - 1 through in one window.)
 */

export interface RateWindow {
  requests: number;
  windowMs: number;
}

export interface SlotAnswer {
  /** Calls that may go now. */
  free: number;
  /** When the next call may go: `now` when `free` > 0, else when the oldest slot that matters leaves the window, or the block ends. */
  nextFreeAt: number;
}

/**
 * `times`: the log's call times inside the window, ascending (a slot at `t` occupies (t, t + W]).
 * A call at `now` is allowed while fewer than N slots lie in (now - W, now].
 */
export function freeSlots(times: readonly number[], limit: RateWindow, now: number, blockedUntil: number | null): SlotAnswer {
  const inWindow = times.filter((at) => at > now - limit.windowMs);
  const used = inWindow.length;
  const free = Math.max(0, limit.requests - used);
  // With N or more in the window, the (used - N + 1) oldest must leave before one more fits.
  const slotFreesAt = free > 0 ? now : (inWindow[used - limit.requests] as number) + limit.windowMs;
  if (blockedUntil !== null && blockedUntil > now) return { free: 0, nextFreeAt: Math.max(blockedUntil, slotFreesAt) };
  return { free, nextFreeAt: slotFreesAt };
}

/** The most calls any interval of length `windowMs` holds: what a strict upstream would count. */
export function busiestWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let first = 0;
  for (let last = 0; last < sorted.length; last += 1) {
    // An interval (t - W, t] ending at a call holds the calls after t - W.
    while ((sorted[first] as number) <= (sorted[last] as number) - windowMs) first += 1;
    most = Math.max(most, last - first + 1);
  }
  return most;
}
