/**
 * When to try a failed job again. Pure functions: the worker passes the clock and the random
 * source, so tests pin both. Shape from docs/protocols.md §6 (Svix): a fixed schedule with ±20 %
 * jitter, Retry-After honoured within bounds, a timeout or 429 waits at least 60 s.
 */

/** Spread of the jitter around each schedule step: ±20 %. */
export const RETRY_JITTER = 0.2;
/** The longest a Retry-After may hold a job back: a hostile or broken upstream can't park it for days. */
export const MAX_RETRY_AFTER_MS = 3_600_000;
/** Floor after a timeout or a 429 (Svix): handlers pass it as `minDelayMs`. */
export const SLOW_DOWN_MIN_DELAY_MS = 60_000;

export interface RetryInput {
  /** 1-based number of the attempt that just failed. */
  attempt: number;
  /** The upstream's Retry-After, already converted to a delay (see parseRetryAfter). */
  retryAfterMs?: number;
  /** A floor the handler asks for (60 s after a timeout or 429). */
  minDelayMs?: number;
}

export type RetryDecision = { retry: true; delayMs: number } | { retry: false };

/** `step` ±20 %; `random` returns [0, 1) like Math.random. */
export function jitter(step: number, random: () => number): number {
  return step * (1 - RETRY_JITTER + 2 * RETRY_JITTER * random());
}

/**
 * `schedule[i]` is the delay before attempt i+1, so after attempt n failed the next delay is
 * `schedule[n]`; past the last step the job is dead.
 */
export function nextRetry(schedule: readonly number[], input: RetryInput, random: () => number = Math.random): RetryDecision {
  if (!Number.isInteger(input.attempt) || input.attempt < 1) throw new RangeError(`attempt must be a whole number ≥ 1, got ${input.attempt}`);
  const step = schedule[input.attempt];
  if (step === undefined) return { retry: false };
  let delay = jitter(step, random);
  if (input.retryAfterMs !== undefined && Number.isFinite(input.retryAfterMs)) {
    // Clamped to [schedule step, 1 h]; a step already above 1 h wins (the schedule never gets shorter).
    delay = Math.min(Math.max(input.retryAfterMs, delay), Math.max(delay, MAX_RETRY_AFTER_MS));
  }
  if (input.minDelayMs !== undefined) delay = Math.max(delay, input.minDelayMs);
  return { retry: true, delayMs: Math.round(delay) };
}

/**
 * Reads an HTTP `Retry-After` (RFC 9110 §10.2.3: delay-seconds or an HTTP-date) into a delay in ms
 * from `now` (fractional seconds honoured). A date in the past means 0; anything unreadable means undefined
 * (fall back to the schedule).
 */
export function parseRetryAfter(header: string | readonly string[] | null | undefined, now: number): number | undefined {
  const value = (typeof header === 'string' ? header : header?.[0])?.trim();
  if (!value) return undefined;
  // delay-seconds is an integer in RFC 9110, but Graph's own throttling guidance shows `Retry-After: 2.128`
  // (docs/protocols.md §7): a fraction is honoured, rounded up so the retry is never early.
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  // Every HTTP-date form names a weekday or month; this keeps "-5" or "1.5" from parsing as a year.
  if (!/[a-z]/i.test(value)) return undefined;
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}
