import { afterEach, describe, expect, it } from 'vitest';
import { replies, startFakeMomentum } from '../fakes/fake-momentum.ts';
import { killAllBridges, spawnBridge } from '../support/spawn-bridge.ts';
import { bridgeEnv, reportSummary, scenarioDir } from './support/bridge-env.ts';
import { waitForBridge } from './support/bridge-diagnostics.ts';
import { answerAndRecord, forwardedCounts } from './support/momentum-traffic.ts';
import { buildLoad, countOutcomes, notificationOfRemap, postLoad } from './support/salesforce-load.ts';
import { sqliteState } from './support/stored-state.ts';

const RETRY_AFTER_S = 2;
const STORM = 2;
// One call per 250 ms: without the 429 block the next request would follow within 250 ms.
const RATE_LIMIT = '1/250ms';
// retry-policy.ts: a 429 waits at least 60 s (Svix, protocols.md §6), whatever Retry-After says.
const SLOW_DOWN_MIN_DELAY_MS = 60_000;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  await killAllBridges();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('reliability: rate-limit storm', () => {
  it('when Momentum answers 429 with Retry-After: 2, then nothing at all is sent before that time and the 429ed remaps wait their turn', async () => {
    // Arrange: the first STORM requests get 429 Retry-After: 2; the rest are accepted.
    const fake = await startFakeMomentum();
    cleanups.push(() => fake.close());
    const answered = answerAndRecord(fake, (_request, index) => (index < STORM ? replies.rateLimited(String(RETRY_AFTER_S)) : replies.accept()));
    const dir = scenarioDir('storm');
    cleanups.push(dir.remove);
    const bridge = await spawnBridge({
      env: bridgeEnv({
        databaseUrl: `sqlite:${dir.sqliteFile}`,
        momentumUrl: fake.url,
        settings: { MOMENTUM_RATE_LIMIT: RATE_LIMIT, WORKER_CONCURRENCY: '4', RETRY_SCHEDULE: '0s,200ms,500ms,1s' },
      }),
    });
    const state = sqliteState(dir.sqliteFile);
    const load = buildLoad(2, 6);
    const notificationIds = load.flatMap((message) => message.notificationIds);

    // Act: post, then wait for every remap that was not rate limited (the 429ed ones retry after ≥ 60 s:
    // the scenario ends once the block has been observed, without waiting for them).
    const outcomes = await postLoad(bridge.url, load, { concurrency: 2 });
    await waitForBridge(bridge, 'every remap that was not rate limited to be delivered', () => answered.filter((a) => a.status === 200).length >= notificationIds.length - STORM, 30_000);
    const jobs = (await state.jobs()).filter((job) => job.kind === 'remap');
    const attempts = await state.attempts();
    bridge.child.kill('SIGTERM');
    const exit = await bridge.exited;

    // Assert: after each 429 the fake heard nothing until Retry-After had passed, from any job.
    expect(countOutcomes(outcomes).acked).toBe(load.length);
    const limited = answered.filter((entry) => entry.status === 429);
    expect(limited).toHaveLength(STORM);
    const quietAfter = limited.map((entry) => {
      const next = answered.find((later) => later.request.receivedAt > entry.request.receivedAt);
      return next === undefined ? Number.POSITIVE_INFINITY : next.request.receivedAt - entry.request.receivedAt;
    });
    expect(quietAfter.filter((ms) => ms < RETRY_AFTER_S * 1000)).toEqual([]);
    // The block held back jobs other than the 429ed one: they were waiting when the window opened.
    const firstLimitAt = limited[0]!.request.receivedAt;
    const limitedIds = new Set(limited.map((entry) => notificationOfRemap(entry.request.body)));
    const waiting = jobs.filter((job) => !limitedIds.has(notificationOfRemap((job.payload as { request: unknown }).request)) && job.createdAt < firstLimitAt);
    expect(waiting.length).toBeGreaterThan(0);

    // Assert: the others were delivered once each; the 429ed ones are pending, retried no sooner than allowed.
    const delivered = forwardedCounts(answered.filter((entry) => entry.status === 200).map((entry) => entry.request));
    expect([...delivered.keys()].sort()).toEqual(notificationIds.filter((id) => !limitedIds.has(id)).sort());
    expect([...delivered.values()].every((count) => count === 1)).toBe(true);
    const limitedJobs = jobs.filter((job) => limitedIds.has(notificationOfRemap((job.payload as { request: unknown }).request)));
    expect(limitedJobs.map((job) => ({ state: job.state, attempts: job.attempts }))).toEqual(limitedJobs.map(() => ({ state: 'pending', attempts: 1 })));
    for (const job of limitedJobs) {
      const [attempt] = attempts.filter((row) => row.jobId === job.id);
      expect(attempt?.status).toBe(429);
      expect(job.runAt - (attempt!.startedAt + attempt!.durationMs)).toBeGreaterThanOrEqual(SLOW_DOWN_MIN_DELAY_MS);
    }
    // Deferrals for pacing are not attempts: every delivered remap took exactly one.
    expect(jobs.filter((job) => job.state === 'succeeded').every((job) => job.attempts === 1)).toBe(true);
    expect(exit).toEqual({ code: 0, signal: null });

    reportSummary('rate-limit-storm', {
      requests: answered.length,
      rateLimited: limited.length,
      retryAfterS: RETRY_AFTER_S,
      quietAfter429Ms: quietAfter.map((ms) => (Number.isFinite(ms) ? ms : 'none')).join('/'),
      jobsHeldByBlock: waiting.length,
      delivered: delivered.size,
      limitedRetryInS: limitedJobs.map((job) => Math.round((job.runAt - Date.now()) / 1000)).join('/'),
    });
  });
});
