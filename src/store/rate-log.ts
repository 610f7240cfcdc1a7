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

/**
 * When the last of `backlog` more calls goes if each goes as early as freeSlots allows (the
 * claim's own rule) and takes no time: the admin's ETA of a backlog. `now` when it is empty.
 *
 * A call may go at t when fewer than N slots lie in (t − W, t], that is when the N-th latest slot
 * so far, D, is at or before t − W (with fewer than N slots, at any t). So the k-th call goes at
 * f_k = max(start, D_k + W), start being now or the end of a block, D_k the N-th latest of the log
 * and f_1 … f_{k−1}. f_k is later than D_k, so it joins the N latest and D_k leaves them; f never
 * decreases (the N latest only move later), so f_backlog is the last call. Once the N latest are
 * all calls of the backlog (f_{k−N+1} … f_k, no slot of the log left among them), D_{k+1} = f_{k+1−N}
 * and f_{k+1} = f_{k+1−N} + W: each window of W lets N go, each call one window after the call N
 * before it. The loop places calls one by one until then (at most the log's N latest and the
 * calls that pass them), and the rest follows at once: f_B = f_{B−rN} + rW with r = ⌈(B − k)/N⌉.
 */
export function lastCallAt(times: readonly number[], limit: RateWindow, now: number, blockedUntil: number | null, backlog: number): number {
  const { requests, windowMs } = limit;
  if (backlog <= 0) return now;
  const start = blockedUntil !== null && blockedUntil > now ? blockedUntil : now;
  // Ascending; a slot that left the window (D + W ≤ now) constrains no call, as an absent one.
  const latest = times.filter((at) => at > now - windowMs).sort((a, b) => a - b);
  latest.splice(0, Math.max(0, latest.length - requests));
  const sent: number[] = [];
  for (let placed = 0; placed < backlog; placed += 1) {
    if (placed >= requests && latest.every((at, index) => at === sent[placed - requests + index])) {
      const rounds = Math.ceil((backlog - placed) / requests);
      return (sent[backlog - 1 - rounds * requests] as number) + rounds * windowMs;
    }
    const at = latest.length < requests ? start : Math.max(start, (latest.shift() as number) + windowMs);
    const position = latest.findIndex((other) => other > at);
    latest.splice(position === -1 ? latest.length : position, 0, at);
    sent.push(at);
  }
  return sent[backlog - 1] as number;
}
