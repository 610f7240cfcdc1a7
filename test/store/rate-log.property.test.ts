import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { busiestWindow, freeSlots, lastCallAt, type RateWindow } from '../../src/store/rate-log.ts';

/**
 * The pacing arithmetic, for any limit and any pattern of attempts: a pacer that lets calls go
 * only as freeSlots allows never puts more than N calls in any interval of length W, and it says
 * exactly when the next call may go.
 */

const limits = fc.record({ requests: fc.integer({ min: 1, max: 20 }), windowMs: fc.integer({ min: 1, max: 10_000 }) });
// Each step: time moves on by `gap` ms and a caller asks for up to `wanted` calls.
const steps = fc.array(fc.record({ gap: fc.integer({ min: 0, max: 5_000 }), wanted: fc.integer({ min: 0, max: 30 }) }), { maxLength: 200 });

/** Plays the pattern: at each step, as many calls as were wanted and freeSlots allows; the log and the last time. */
function callAsAllowed(limit: RateWindow, pattern: ReadonlyArray<{ gap: number; wanted: number }>): { log: number[]; now: number } {
  const log: number[] = [];
  let now = 0;
  for (const { gap, wanted } of pattern) {
    now += gap;
    const { free } = freeSlots(log, limit, now, null);
    for (let taken = 0; taken < Math.min(free, wanted); taken += 1) log.push(now);
  }
  return { log, now };
}

describe('freeSlots', () => {
  it('when calls go only as freeSlots allows, then no interval of length W ever holds more than N calls, whatever the pattern', () => {
    fc.assert(
      fc.property(limits, steps, (limit, pattern) => {
        const { log } = callAsAllowed(limit, pattern);
        expect(busiestWindow(log, limit.windowMs)).toBeLessThanOrEqual(limit.requests);
      }),
    );
  });

  it('when the budget is spent, then a call fits exactly at nextFreeAt and not a millisecond earlier', () => {
    fc.assert(
      fc.property(limits, steps, (limit, pattern) => {
        const { log, now } = callAsAllowed(limit, pattern);
        const answer = freeSlots(log, limit, now, null);
        if (answer.free > 0) {
          expect(answer.nextFreeAt).toBe(now);
          return;
        }
        expect(freeSlots(log, limit, answer.nextFreeAt, null).free).toBeGreaterThan(0);
        expect(freeSlots(log, limit, answer.nextFreeAt - 1, null).free).toBe(0);
      }),
    );
  });

  it('when the budget is used in full after an idle spell, then it still never grants more than N in the next window', () => {
    fc.assert(
      fc.property(limits, fc.integer({ min: 0, max: 100_000 }), (limit, idle) => {
        const log: number[] = [];
        const greedy = (now: number) => {
          const { free } = freeSlots(log, limit, now, null);
          for (let taken = 0; taken < free; taken += 1) log.push(now);
        };
        // A full burst, an idle spell, then a caller taking every slot each millisecond for two windows.
        greedy(0);
        for (let now = idle; now <= idle + 2 * limit.windowMs; now += 1) greedy(now);
        expect(busiestWindow(log, limit.windowMs)).toBeLessThanOrEqual(limit.requests);
      }),
      { numRuns: 50 },
    );
  });

  it('when the budget is blocked, then nothing is free until the block ends, and the next free time is never before it', () => {
    fc.assert(
      fc.property(limits, fc.integer({ min: 0, max: 50_000 }), fc.integer({ min: 1, max: 50_000 }), (limit, now, blockMs) => {
        const answer = freeSlots([], limit, now, now + blockMs);
        expect(answer.free).toBe(0);
        expect(answer.nextFreeAt).toBeGreaterThanOrEqual(now + blockMs);
      }),
    );
  });
});

describe('busiestWindow', () => {
  it('when compared with counting every interval, then it finds the same maximum', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 1_000 }), { maxLength: 60 }), fc.integer({ min: 1, max: 300 }), (times, windowMs) => {
        const brute = times.reduce((most, end) => Math.max(most, times.filter((at) => at > end - windowMs && at <= end).length), 0);
        expect(busiestWindow(times, windowMs)).toBe(brute);
      }),
    );
  });
});

/** Sends `backlog` calls one by one, each at the first moment freeSlots lets it go; the time of the last. */
function sendOneByOne(times: readonly number[], limit: RateWindow, now: number, blockedUntil: number | null, backlog: number): number {
  const log = [...times].sort((a, b) => a - b);
  let at = now;
  for (let sent = 0; sent < backlog; sent += 1) {
    for (let answer = freeSlots(log, limit, at, blockedUntil); answer.free === 0; answer = freeSlots(log, limit, at, blockedUntil)) at = answer.nextFreeAt;
    log.push(at);
    log.sort((a, b) => a - b);
  }
  return at;
}

describe('lastCallAt', () => {
  it('when compared with sending the backlog one call at a time as freeSlots allows, then it names the same moment for the last call', () => {
    const NOW = 100_000;
    fc.assert(
      fc.property(
        limits,
        // Slots from two windows back to 30 s ahead: a call not yet answered is dated up to its timeout ahead.
        fc.array(fc.integer({ min: NOW - 20_000, max: NOW + 30_000 }), { maxLength: 30 }),
        fc.option(fc.integer({ min: NOW - 5_000, max: NOW + 50_000 })),
        fc.integer({ min: 0, max: 80 }),
        (limit, times, blockedUntil, backlog) => {
          expect(lastCallAt(times, limit, NOW, blockedUntil, backlog)).toBe(sendOneByOne(times, limit, NOW, blockedUntil, backlog));
        },
      ),
    );
  });

  it('when 2 calls per 10 s were made at 1 s and 3 s and 3 more wait, then the last goes at 21 s: two at 11 s and 13 s, one more a window after the first', () => {
    expect(lastCallAt([1_000, 3_000], { requests: 2, windowMs: 10_000 }, 5_000, null, 3)).toBe(21_000);
    expect(lastCallAt([1_000, 3_000], { requests: 2, windowMs: 10_000 }, 5_000, null, 0)).toBe(5_000);
    expect(lastCallAt([], { requests: 2, windowMs: 10_000 }, 5_000, null, 2)).toBe(5_000);
  });
});
