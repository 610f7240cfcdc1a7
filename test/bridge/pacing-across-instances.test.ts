import { describe, expect, it } from 'vitest';

import { startStrictMomentum } from '../fakes/strict-momentum.ts';
import { buildLoad, notificationOfRemap } from '../reliability/support/salesforce-load.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { pacingFigures, rateLimitSetting } from '../support/pacing-figures.ts';
import { TEST_DATABASE_URL, testDatabase } from '../support/real-store.ts';
import { waitFor } from '../support/wait-for.ts';
import { claimsOf, postAcknowledged, startPacedBridge, timesSent } from './support/paced-bridges.ts';

/*
 * Momentum allows N calls per W per API key, counted over every instance of the bridge. Here three
 * bridges share one PostgreSQL schema and call a Momentum that refuses the (N + 1)th request in any
 * interval of W (a sliding window, the strictest reading of the limit). The rule: no 429 ever, no
 * interval of W holding more than N calls, and the budget used — each full window after the first
 * carries at least 95 % of N while work is waiting — with each meeting sent once and about one
 * claim per call. The call log is in the database, so an instance restarting midway changes
 * nothing. The limit is scaled down in time (N per 3 s) so a backlog of several windows drains in
 * seconds; the backlog is one Outbound Message of distinct Events, stored in one go.
 */

const LIMIT = { requests: 20, windowMs: 3_000 };
const MIN_FILL_PCT = 95;
const MEETINGS = 70; // 3.5 windows

const cleanups = cleanupAfterEach();

describe.skipIf(!TEST_DATABASE_URL)(
  `pacing across bridges on one PostgreSQL schema${TEST_DATABASE_URL ? '' : ' (skipped: TEST_DATABASE_URL is unset)'}`,
  () => {
    it(`when three bridges drain a backlog of ${MEETINGS / LIMIT.requests} windows and one restarts midway, then no 429, no window over N, each full window ≥ ${MIN_FILL_PCT} % of N, each meeting once, one claim per call`, async () => {
      // Arrange: a strict Momentum (a little latency keeps calls in flight) and three bridges on one schema.
      const momentum = await startStrictMomentum({ ...LIMIT, latencyMs: 20 });
      cleanups.push(() => momentum.close());
      const database = testDatabase('postgres', 'pacing_across');
      cleanups.push(database.drop);
      const start = async () => {
        const bridge = await startPacedBridge({ database, momentumUrl: momentum.url, rateLimit: rateLimitSetting(LIMIT) });
        cleanups.push(bridge.stop);
        return bridge;
      };
      const bridges = await Promise.all([start(), start(), start()]);
      const [message] = buildLoad(1, MEETINGS);
      const startedAt = Date.now();

      // Act: the backlog in one message; a rolling restart of the third bridge during the second window.
      await postAcknowledged(bridges[0]!.url, message!.xml);
      await waitFor('the first window to be spent and the second begun', () => momentum.accepted().length >= LIMIT.requests + 5, 10_000);
      const claimsBeforeRestart = await claimsOf(bridges[2]!.url);
      await bridges[2]!.stop();
      bridges[2] = await start();
      await momentum.waitForAccepted(MEETINGS, 20_000);
      // Each outcome is stored after its answer: wait for them, so the claims counted are all there are.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const claims = claimsBeforeRestart + (await Promise.all(bridges.map((bridge) => claimsOf(bridge.url)))).reduce((a, b) => a + b, 0);

      // Assert
      const accepted = momentum.accepted();
      const figures = pacingFigures(
        accepted.map((request) => request.receivedAt),
        LIMIT,
      );
      const sent = timesSent(
        accepted.map((request) => request.body),
        notificationOfRemap,
      );
      console.log(
        `[pacing] 3 bridges on PostgreSQL, ${rateLimitSetting(LIMIT)}, ${MEETINGS} remaps, one restarted: 429s=${momentum.rateLimited} busiest=${figures.busiest}/${LIMIT.requests} ` +
          `perWindow=${figures.perWindow.join(',')} fullWindowFill%=${figures.fullWindowFillPct.join(',')} claimsPerCall=${(claims / accepted.length).toFixed(3)} runMs=${Date.now() - startedAt}`,
      );
      expect(momentum.rateLimited).toBe(0);
      expect(figures.busiest).toBeLessThanOrEqual(LIMIT.requests);
      expect(figures.fullWindowFillPct.length).toBeGreaterThanOrEqual(2);
      expect(figures.fullWindowFillPct.filter((pct) => pct < MIN_FILL_PCT)).toEqual([]);
      expect([...sent.keys()].sort()).toEqual([...message!.notificationIds].sort());
      expect([...sent.values()].filter((count) => count !== 1)).toEqual([]);
      expect(accepted).toHaveLength(MEETINGS);
      expect(claims / accepted.length).toBeLessThanOrEqual(1.2);
    });
  },
);
