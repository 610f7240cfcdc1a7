import { describe, expect, it } from 'vitest';

import { startStrictMomentum } from '../fakes/strict-momentum.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { pacingFigures, rateLimitSetting } from '../support/pacing-figures.ts';
import { testDatabase } from '../support/real-store.ts';
import { claimsOf, postRemaps, startPacedBridge, timesSent } from './support/paced-bridges.ts';

/*
 * The same rules on the embedded store: one bridge on a SQLite file against a Momentum that refuses
 * the (N + 1)th request in any interval of W. No 429, no window over N, each full window after the
 * first at least 95 % of N while work waits, each meeting once, one claim per call; and the call log
 * is in the file, so a restarted bridge waits for the calls its predecessor made. PostgreSQL's
 * counterpart, with two and three bridges on one schema, is pacing-across-instances.test.ts.
 */

const LIMIT = { requests: 20, windowMs: 3_000 };
const MIN_FILL_PCT = 95;
const MEETINGS = 70; // 3.5 windows

const cleanups = cleanupAfterEach();

async function arrange() {
  const database = testDatabase('sqlite', 'pacing-sqlite');
  cleanups.push(database.drop);
  const momentum = await startStrictMomentum({ ...LIMIT, latencyMs: 20 });
  cleanups.push(() => momentum.close());
  const start = async () => {
    const bridge = await startPacedBridge({
      database,
      momentumUrl: momentum.url,
      rateLimit: rateLimitSetting(LIMIT),
    });
    cleanups.push(bridge.stop);
    return bridge;
  };
  return { momentum, start };
}

describe('pacing of one bridge on SQLite', () => {
  it(`when a backlog of ${MEETINGS / LIMIT.requests} windows drains, then no 429, no window over N, each full window ≥ ${MIN_FILL_PCT} % of N, each meeting once, one claim per call`, async () => {
    // Arrange
    const { momentum, start } = await arrange();
    const bridge = await start();
    const meetings = Array.from({ length: MEETINGS }, (_, n) => `sqlite-${n}`);
    const startedAt = Date.now();

    // Act
    await postRemaps([bridge.url], meetings);
    await momentum.waitForAccepted(meetings.length, 20_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const claims = await claimsOf(bridge.url);

    // Assert
    const accepted = momentum.accepted();
    const figures = pacingFigures(
      accepted.map((request) => request.receivedAt),
      LIMIT,
    );
    const sent = timesSent(accepted.map((request) => request.body));
    console.log(
      `[pacing] 1 bridge on SQLite, ${rateLimitSetting(LIMIT)}, ${MEETINGS} remaps: 429s=${momentum.rateLimited} busiest=${figures.busiest}/${LIMIT.requests} ` +
        `perWindow=${figures.perWindow.join(',')} fullWindowFill%=${figures.fullWindowFillPct.join(',')} claimsPerCall=${(claims / accepted.length).toFixed(3)} runMs=${Date.now() - startedAt}`,
    );
    expect(momentum.rateLimited).toBe(0);
    expect(figures.busiest).toBeLessThanOrEqual(LIMIT.requests);
    expect(figures.fullWindowFillPct.length).toBeGreaterThanOrEqual(2);
    expect(figures.fullWindowFillPct.filter((pct) => pct < MIN_FILL_PCT)).toEqual([]);
    expect([...sent.keys()].sort()).toEqual([...meetings].sort());
    expect([...sent.values()].filter((count) => count !== 1)).toEqual([]);
    expect(claims / accepted.length).toBeLessThanOrEqual(1.2);
  });

  it('when the bridge restarts right after spending the budget, then the new process waits for its predecessor’s calls to leave the window', async () => {
    // Arrange: a whole budget spent by the first process.
    const { momentum, start } = await arrange();
    const first = await start();
    await postRemaps(
      [first.url],
      Array.from({ length: LIMIT.requests }, (_, n) => `before-${n}`),
    );
    await momentum.waitForAccepted(LIMIT.requests);

    // Act: stop, start a new process on the same file, and give it a whole budget's worth of work at once.
    await first.stop();
    const second = await start();
    await postRemaps(
      [second.url],
      Array.from({ length: LIMIT.requests }, (_, n) => `after-${n}`),
    );
    await momentum.waitForAccepted(2 * LIMIT.requests, 10_000);

    // Assert: the restart bought no fresh budget.
    const arrivals = momentum.accepted().map((request) => request.receivedAt);
    const firstCall = Math.min(...arrivals.slice(0, LIMIT.requests));
    const afterRestart = Math.min(...arrivals.slice(LIMIT.requests));
    const figures = pacingFigures(arrivals, LIMIT);
    console.log(
      `[pacing] restart on SQLite, ${rateLimitSetting(LIMIT)}: 429s=${momentum.rateLimited} busiest=${figures.busiest}/${LIMIT.requests} firstCallAfterRestartMs=${afterRestart - firstCall}`,
    );
    expect(momentum.rateLimited).toBe(0);
    expect(figures.busiest).toBeLessThanOrEqual(LIMIT.requests);
    expect(afterRestart - firstCall).toBeGreaterThanOrEqual(LIMIT.windowMs);
    expect([...timesSent(momentum.accepted().map((request) => request.body)).values()]).toEqual(Array(2 * LIMIT.requests).fill(1));
  });
});
