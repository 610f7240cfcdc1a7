import { describe, expect, it } from 'vitest';

import { startStrictMomentum } from '../fakes/strict-momentum.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { pacingFigures, rateLimitSetting } from '../support/pacing-figures.ts';
import { TEST_DATABASE_URL, testDatabase } from '../support/real-store.ts';
import { meetingOf, postRemaps, startPacedBridge, timesSent } from './support/paced-bridges.ts';

/*
 * An idle spell must not buy a second budget. The call log remembers each call for a whole window,
 * so work arriving after a pause shorter than the window gets only what the earlier calls left,
 * and after a pause of a whole window exactly N go at once — never the N + N/2 a token bucket that
 * started full and kept refilling would let through. Two bridges on one PostgreSQL schema against a
 * Momentum that refuses the (N + 1)th request in any interval of W.
 */

const LIMIT = { requests: 20, windowMs: 3_000 };
const HALF = LIMIT.requests / 2;

const cleanups = cleanupAfterEach();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!TEST_DATABASE_URL)(
  `pacing after an idle spell, two bridges on PostgreSQL${TEST_DATABASE_URL ? '' : ' (skipped: TEST_DATABASE_URL is unset)'}`,
  () => {
    it('when work follows a pause shorter than the window, then only what the earlier calls left goes; after a whole idle window, N at once and no more', async () => {
      // Arrange
      const momentum = await startStrictMomentum(LIMIT);
      cleanups.push(() => momentum.close());
      const database = testDatabase('postgres', 'pacing_idle');
      cleanups.push(database.drop);
      const urls: string[] = [];
      for (let i = 0; i < 2; i += 1) {
        const bridge = await startPacedBridge({ database, momentumUrl: momentum.url, rateLimit: rateLimitSetting(LIMIT) });
        cleanups.push(bridge.stop);
        urls.push(bridge.url);
      }
      const batch = (name: string, count: number) => Array.from({ length: count }, (_, n) => `${name}-${n}`);
      const arrivalsOf = (name: string) =>
        momentum
          .accepted()
          .filter((request) => meetingOf(request.body)?.startsWith(`${name}-`))
          .map((request) => request.receivedAt)
          .sort((x, y) => x - y);

      // Act 1: half the budget (a), a pause of a third of the window, then a whole budget's worth (b).
      await postRemaps(urls, batch('a', HALF));
      await momentum.waitForAccepted(HALF);
      await sleep(LIMIT.windowMs / 3);
      const bStored = await postRemaps(urls, batch('b', LIMIT.requests));
      await momentum.waitForAccepted(HALF + LIMIT.requests, 10_000);

      // Act 2: a pause longer than the window, then one and a half budgets at once (c).
      await sleep(LIMIT.windowMs * 1.2);
      const cStored = await postRemaps(urls, batch('c', HALF * 3));
      await momentum.waitForAccepted(HALF + LIMIT.requests + HALF * 3, 10_000);

      // Assert: across both pauses, no interval of W ever held more than N.
      const figures = pacingFigures(
        momentum.accepted().map((request) => request.receivedAt),
        LIMIT,
      );
      const [a, b, c] = [arrivalsOf('a'), arrivalsOf('b'), arrivalsOf('c')];
      // How long each of the first `count` calls of a batch waited after its remap was stored.
      const waits = (name: string, stored: Map<string, number>, count: number) =>
        momentum
          .accepted()
          .filter((request) => meetingOf(request.body)?.startsWith(`${name}-`))
          .slice(0, count)
          .map((request) => request.receivedAt - stored.get(meetingOf(request.body)!)!);
      const [bWaits, cWaits] = [waits('b', bStored, HALF), waits('c', cStored, LIMIT.requests)];
      console.log(
        `[pacing] after idle, 2 bridges on PostgreSQL, ${rateLimitSetting(LIMIT)}: 429s=${momentum.rateLimited} busiest=${figures.busiest}/${LIMIT.requests} ` +
          `bFirstHalfLongestWaitMs=${Math.max(...bWaits)} bSecondHalfAfterAMs=${b[HALF]! - a[0]!} cFirstNLongestWaitMs=${Math.max(...cWaits)} cNextAfterFirstMs=${c[LIMIT.requests]! - c[0]!}`,
      );
      expect(momentum.rateLimited).toBe(0);
      expect(figures.busiest).toBeLessThanOrEqual(LIMIT.requests);
      const sent = timesSent(momentum.accepted().map((request) => request.body));
      expect(sent.size).toBe(HALF + LIMIT.requests + HALF * 3);
      expect([...sent.values()].filter((count) => count !== 1)).toEqual([]);
      // b: the half a left went at once (each sent as soon as stored, not two thirds of a window later,
      // when a's calls leave it); the other half waited until they had.
      expect(Math.max(...bWaits)).toBeLessThan(LIMIT.windowMs / 3);
      expect(b[HALF]! - a[0]!).toBeGreaterThanOrEqual(LIMIT.windowMs);
      // c: after a whole idle window the full budget at once (each of the first N sent as soon as stored), and not one call more.
      expect(Math.max(...cWaits)).toBeLessThan(LIMIT.windowMs / 3);
      expect(c[LIMIT.requests]! - c[0]!).toBeGreaterThanOrEqual(LIMIT.windowMs);
    });
  },
);
