import { afterEach, describe, expect, it } from 'vitest';
import { replies, startFakeMomentum } from '../fakes/fake-momentum.ts';
import { killAllBridges, spawnBridge } from '../support/spawn-bridge.ts';
import { bridgeEnv, reportSummary, scenarioDir } from './support/bridge-env.ts';
import { waitForBridge } from './support/bridge-diagnostics.ts';
import { busiestWindow } from '../../src/store/rate-log.ts';
import { answerAndRecord, forwardedCounts, REMAP_PATH } from './support/momentum-traffic.ts';
import { buildLoad, countOutcomes, postLoad } from './support/salesforce-load.ts';
import { sqliteState, type AttemptRow } from './support/stored-state.ts';

// RETRY_SCHEDULE[n] is the delay after attempt n failed (retry-policy.ts); ±20 % jitter.
const SCHEDULE_MS = [0, 200, 500, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000];
const JITTER = 0.2;
const LIMIT = { requests: 4, windowMs: 500 };
// Longer than the 16 first attempts take at 4 per 500 ms, so retries meet the outage too.
const OUTAGE_MS = 3000;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  await killAllBridges();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Each attempt after a failed one, with the pause the bridge took and the least the schedule allows. */
function pausesAfterFailures(attempts: readonly AttemptRow[]) {
  const pauses: Array<{ afterAttempt: number; pauseMs: number; floorMs: number }> = [];
  attempts.forEach((attempt, n) => {
    const next = attempts[n + 1];
    if (next === undefined || attempt.status === 200) return;
    const step = SCHEDULE_MS[n + 1] ?? Number.NaN;
    pauses.push({ afterAttempt: n + 1, pauseMs: next.startedAt - (attempt.startedAt + attempt.durationMs), floorMs: Math.floor(step * (1 - JITTER)) });
  });
  return pauses;
}

describe('reliability: upstream outage', () => {
  it('when Momentum answers 503 for three seconds, then every remap is delivered after recovery, paced, with growing pauses between attempts', async () => {
    // Arrange: 503 for every request in the first OUTAGE_MS after the first one, then accept.
    const fake = await startFakeMomentum();
    cleanups.push(() => fake.close());
    let outageStart: number | undefined;
    const answered = answerAndRecord(fake, (request) => {
      outageStart ??= request.receivedAt;
      return request.receivedAt - outageStart < OUTAGE_MS ? replies.serverError(503) : replies.accept();
    });
    const dir = scenarioDir('outage');
    cleanups.push(dir.remove);
    const bridge = await spawnBridge({
      env: bridgeEnv({
        databaseUrl: `sqlite:${dir.sqliteFile}`,
        momentumUrl: fake.url,
        settings: {
          MOMENTUM_RATE_LIMIT: `${LIMIT.requests}/${LIMIT.windowMs}ms`,
          RETRY_SCHEDULE: SCHEDULE_MS.map((ms) => `${ms}ms`).join(','),
          WORKER_CONCURRENCY: '8',
        },
      }),
    });
    const state = sqliteState(dir.sqliteFile);
    const load = buildLoad(2, 8);
    const notificationIds = load.flatMap((message) => message.notificationIds);

    // Act
    const outcomes = await postLoad(bridge.url, load, { concurrency: 2 });
    await waitForBridge(
      bridge,
      'every remap job to finish',
      async () => {
        const remaps = (await state.jobs()).filter((job) => job.kind === 'remap');
        return remaps.length === notificationIds.length && remaps.every((job) => job.state !== 'pending' && job.state !== 'running');
      },
      60_000,
    );

    // Assert: all delivered, none dead, and only after the outage ended.
    expect(countOutcomes(outcomes).acked).toBe(load.length);
    const jobs = (await state.jobs()).filter((job) => job.kind === 'remap');
    expect(jobs.map((job) => job.state)).toEqual(notificationIds.map(() => 'succeeded'));
    const accepted = answered.filter((entry) => entry.status === 200).map((entry) => entry.request);
    const failed = answered.filter((entry) => entry.status === 503);
    const delivered = forwardedCounts(accepted);
    expect(new Set(delivered.keys())).toEqual(new Set(notificationIds));
    expect([...delivered.values()].every((count) => count === 1)).toBe(true);
    expect(failed.length).toBeGreaterThan(0);

    // Assert: the attempt log shows 503s and then the success, each pause at least its schedule step.
    const attempts = await state.attempts();
    const byJob = jobs.map((job) => attempts.filter((attempt) => attempt.jobId === job.id));
    for (const log of byJob) {
      expect(log.at(-1)?.status).toBe(200);
      expect(log.slice(0, -1).every((attempt) => attempt.status === 503 && attempt.errorClass === 'http_5xx')).toBe(true);
    }
    const pauses = byJob.flatMap(pausesAfterFailures);
    expect(pauses.filter((pause) => pause.pauseMs < pause.floorMs)).toEqual([]);
    // The backoff grew: some remap failed at least twice, so it waited ≥ 160 ms and then ≥ 400 ms.
    expect(pauses.some((pause) => pause.afterAttempt >= 2)).toBe(true);

    // Assert: pacing held for every request, failed ones included (each takes a call slot): a slot
    // is taken before the request leaves and counts from its answer, so arrivals obey the window too.
    const times = answered.map((entry) => entry.request.receivedAt);
    expect(busiestWindow(times, LIMIT.windowMs)).toBeLessThanOrEqual(LIMIT.requests);
    expect(fake.requests.every((request) => request.path === REMAP_PATH)).toBe(true);

    const meanPause = (n: number) => {
      const list = pauses.filter((pause) => pause.afterAttempt === n).map((pause) => pause.pauseMs);
      return list.length === 0 ? 'n/a' : Math.round(list.reduce((a, b) => a + b, 0) / list.length);
    };
    reportSummary('upstream-outage', {
      notifications: notificationIds.length,
      requests: answered.length,
      failed503: failed.length,
      delivered: accepted.length,
      maxAttempts: Math.max(...byJob.map((log) => log.length)),
      meanPauseAfter1: meanPause(1),
      meanPauseAfter2: meanPause(2),
      meanPauseAfter3: meanPause(3),
      limit: `${LIMIT.requests}/${LIMIT.windowMs}ms`,
      busiestWindow: busiestWindow(times, LIMIT.windowMs),
      firstToLastMs: Math.max(...times) - Math.min(...times),
    });
  });
});
