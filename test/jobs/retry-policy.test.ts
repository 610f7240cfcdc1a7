import { describe, expect, it } from 'vitest';

import { MAX_RETRY_AFTER_MS, nextRetry, parseRetryAfter, SLOW_DOWN_MIN_DELAY_MS } from '../../src/jobs/retry-policy.ts';

const SCHEDULE = [0, 10_000, 60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 43_200_000];
const low = () => 0;
const mid = () => 0.5;
const high = () => 0.999_999;

describe('nextRetry', () => {
  it('when attempt n fails, then the next delay is schedule[n] with no jitter at the midpoint', () => {
    expect(nextRetry(SCHEDULE, { attempt: 1 }, mid)).toEqual({ retry: true, delayMs: 10_000 });
    expect(nextRetry(SCHEDULE, { attempt: 2 }, mid)).toEqual({ retry: true, delayMs: 60_000 });
    expect(nextRetry(SCHEDULE, { attempt: 7 }, mid)).toEqual({ retry: true, delayMs: 43_200_000 });
  });

  it('when the random source is at its extremes, then the delay stays within ±20 % of the step', () => {
    expect(nextRetry(SCHEDULE, { attempt: 2 }, low)).toEqual({ retry: true, delayMs: 48_000 });
    const top = nextRetry(SCHEDULE, { attempt: 2 }, high);
    expect(top.retry && top.delayMs).toBeLessThanOrEqual(72_000);
    expect(top.retry && top.delayMs).toBeGreaterThan(71_999);
  });

  it('when many random draws are made, then every delay lies within the jitter bounds', () => {
    for (let index = 0; index < 1_000; index += 1) {
      const decision = nextRetry(SCHEDULE, { attempt: 1 });
      expect(decision.retry).toBe(true);
      if (decision.retry) {
        expect(decision.delayMs).toBeGreaterThanOrEqual(8_000);
        expect(decision.delayMs).toBeLessThanOrEqual(12_000);
      }
    }
  });

  it('when the last step has been used, then the job is dead', () => {
    expect(nextRetry(SCHEDULE, { attempt: 8 }, mid)).toEqual({ retry: false });
    expect(nextRetry([0, 50, 50], { attempt: 2 }, mid)).toEqual({ retry: true, delayMs: 50 });
    expect(nextRetry([0, 50, 50], { attempt: 3 }, mid)).toEqual({ retry: false });
  });

  it('when the schedule has a single step, then the first failure is final', () => {
    expect(nextRetry([0], { attempt: 1 }, mid)).toEqual({ retry: false });
  });

  it('when Retry-After is longer than the step, then it is honoured exactly', () => {
    expect(nextRetry(SCHEDULE, { attempt: 1, retryAfterMs: 120_000 }, mid)).toEqual({ retry: true, delayMs: 120_000 });
  });

  it('when Retry-After is shorter than the step, then the step (with jitter) wins', () => {
    expect(nextRetry(SCHEDULE, { attempt: 2, retryAfterMs: 1_000 }, low)).toEqual({ retry: true, delayMs: 48_000 });
  });

  it('when Retry-After exceeds an hour, then it is clamped to one hour', () => {
    expect(nextRetry(SCHEDULE, { attempt: 1, retryAfterMs: 86_400_000 }, mid)).toEqual({ retry: true, delayMs: MAX_RETRY_AFTER_MS });
  });

  it('when the step itself is above an hour, then a shorter Retry-After does not shorten it', () => {
    expect(nextRetry(SCHEDULE, { attempt: 5, retryAfterMs: 600_000 }, mid)).toEqual({ retry: true, delayMs: 7_200_000 });
  });

  it('when a timeout or 429 asks for at least 60 s, then a shorter step is raised to 60 s', () => {
    expect(nextRetry(SCHEDULE, { attempt: 1, minDelayMs: SLOW_DOWN_MIN_DELAY_MS }, mid)).toEqual({ retry: true, delayMs: 60_000 });
    expect(nextRetry(SCHEDULE, { attempt: 3, minDelayMs: SLOW_DOWN_MIN_DELAY_MS }, mid)).toEqual({ retry: true, delayMs: 300_000 });
  });

  it('when a 429 carries a short Retry-After, then the 60 s floor still applies', () => {
    expect(nextRetry(SCHEDULE, { attempt: 1, retryAfterMs: 5_000, minDelayMs: SLOW_DOWN_MIN_DELAY_MS }, mid)).toEqual({ retry: true, delayMs: 60_000 });
  });

  it('when the 60 s floor applies but the schedule is exhausted, then the job is still dead', () => {
    expect(nextRetry([0, 10], { attempt: 2, minDelayMs: SLOW_DOWN_MIN_DELAY_MS }, mid)).toEqual({ retry: false });
  });

  it('when the attempt number is not a whole number ≥ 1, then it throws', () => {
    expect(() => nextRetry(SCHEDULE, { attempt: 0 })).toThrow(RangeError);
    expect(() => nextRetry(SCHEDULE, { attempt: 1.5 })).toThrow(RangeError);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-03-01T12:00:00Z');

  it('when the header is delay-seconds, then it becomes milliseconds', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
  });

  it('when the header is fractional seconds, as Graph sends them, then the delay is honoured and rounded up', () => {
    expect(parseRetryAfter('2.128', now)).toBe(2_128);
    expect(parseRetryAfter('0.0001', now)).toBe(1);
  });

  it('when the header is an HTTP date, then the delay runs from now to that date', () => {
    expect(parseRetryAfter('Sat, 01 Mar 2025 12:01:30 GMT', now)).toBe(90_000);
  });

  it('when the HTTP date is in the past, then the delay is zero', () => {
    expect(parseRetryAfter('Sat, 01 Mar 2025 11:00:00 GMT', now)).toBe(0);
  });

  it('when the header is repeated, then the first value counts', () => {
    expect(parseRetryAfter(['30', '90'], now)).toBe(30_000);
  });

  it('when the header is missing or unreadable, then there is no delay to honour', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter('1.', now)).toBeUndefined();
    expect(parseRetryAfter('.5', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });
});
