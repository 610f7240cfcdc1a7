import { afterEach, describe, expect, it } from 'vitest';

import { startStrictMomentum } from '../fakes/strict-momentum.ts';
import { pacingFigures, rateLimitSetting } from '../support/pacing-figures.ts';
import { databaseUrlWithSchema, newSchemaName } from '../support/real-store.ts';
import { killAllBridges, spawnBridge } from '../support/spawn-bridge.ts';
import { waitForBridge } from './support/bridge-diagnostics.ts';
import { bridgeEnv, reportSummary } from './support/bridge-env.ts';
import { connectAdmin } from './support/postgres-admin.ts';
import { buildLoad, notificationOfRemap, postMessage } from './support/salesforce-load.ts';
import { postgresState, unfinished } from './support/stored-state.ts';

/*
 * Three bridge processes share one PostgreSQL schema and one Momentum budget, which a strict
 * Momentum enforces as a sliding window. One process is SIGKILLed mid-backlog with calls in flight.
 * What the bridge promises for a crash: delivery is at least once — a job whose call was under way
 * runs again once its lease expires, with the same Idempotency-Key — and nothing else changes: no
 * 429, no interval of W over N (the call log, in the database, still holds the dead process's
 * calls), every meeting delivered, and only the dead process's in-flight jobs ever sent twice.
 */

const url = process.env.TEST_DATABASE_URL;
const LIMIT = { requests: 20, windowMs: 3_000 };
const MEETINGS = 80; // 4 windows
const LATENCY_MS = 250; // calls stay in flight long enough for the kill to land on some

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  await killAllBridges();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.skipIf(!url)(`reliability: SIGKILL of one of three paced bridges (PostgreSQL)${url ? '' : ' (skipped: TEST_DATABASE_URL is not set)'}`, () => {
  it('when one bridge is SIGKILLed with calls in flight mid-backlog, then every meeting reaches Momentum (the dead one’s in-flight calls again, same Idempotency-Key), with no 429 and no window over N', async () => {
    // Arrange
    const schema = newSchemaName('reliability_pacing_kill');
    const admin = await connectAdmin(url!);
    cleanups.push(
      () => admin.close(),
      () => admin.dropSchema(schema),
    );
    const momentum = await startStrictMomentum({ ...LIMIT, latencyMs: LATENCY_MS });
    cleanups.push(() => momentum.close());
    const env = bridgeEnv({
      databaseUrl: databaseUrlWithSchema(url!, schema),
      momentumUrl: momentum.url,
      settings: { MOMENTUM_RATE_LIMIT: rateLimitSetting(LIMIT), WORKER_CONCURRENCY: '4', DATABASE_POOL_MAX: '4' },
    });
    const bridges = [await spawnBridge({ env }), await spawnBridge({ env }), await spawnBridge({ env })];
    const state = await postgresState(url!, schema);
    cleanups.push(() => state.close());
    const victim = bridges[1]!;
    const survivor = bridges[0]!;
    const [message] = buildLoad(1, MEETINGS);
    const startedAt = Date.now();

    // Act: the backlog in one Outbound Message; once the second window is under way, SIGKILL the
    // victim while Momentum holds one of its remaps, received and not yet answered.
    expect(await postMessage(survivor.url, message!.xml)).toEqual({ kind: 'acked' });
    await waitForBridge(survivor, 'the second window to begin', () => momentum.accepted().length >= LIMIT.requests + 2, 20_000);
    const leasedByVictim = async () =>
      (await state.jobs()).filter((job) => job.kind === 'remap' && job.state === 'running' && job.leaseOwner?.includes(`:${victim.child.pid}:`));
    const unanswered = () =>
      new Set(
        momentum
          .accepted()
          .filter((request) => Date.now() - request.receivedAt < LATENCY_MS - 100)
          .map((request) => Number(request.headers['idempotency-key'])),
      );
    await waitForBridge(
      victim,
      'a remap of the victim at Momentum, unanswered',
      async () => (await leasedByVictim()).some((job) => unanswered().has(job.id)),
      15_000,
    );
    victim.child.kill('SIGKILL');
    const killedAt = Date.now();
    expect(await victim.exited).toMatchObject({ signal: 'SIGKILL' });
    const inFlightAtKill = new Set((await leasedByVictim()).map((job) => job.id));
    await waitForBridge(
      survivor,
      'every remap to finish',
      async () => {
        const jobs = await state.jobs();
        return jobs.filter((job) => job.kind === 'remap').length === MEETINGS && unfinished(jobs).length === 0;
      },
      60_000,
    ).catch(async (error: unknown) => {
      // What a failure needs to say: what is left and why (a 429 blocks the budget for a minute).
      const left = unfinished(await state.jobs()).map((job) => `${job.id}:${job.state}:${job.leaseOwner ?? '-'}`);
      const refused = momentum.requests.find((request) => request.status === 429);
      const before429 =
        refused === undefined
          ? []
          : momentum
              .accepted()
              .filter((request) => request.receivedAt > refused.receivedAt - LIMIT.windowMs)
              .map((request) => `${request.receivedAt - refused.receivedAt}ms:job ${String(request.headers['idempotency-key'])}`);
      throw new Error(
        `${(error as Error).message}; 429s=${momentum.rateLimited} accepted=${momentum.accepted().length} inFlightAtKill=${[...inFlightAtKill].join(',')} unfinished=${left.join(' ')} acceptedInTheWindowBeforeThe429=${before429.join(' ')}`,
        { cause: error },
      );
    });

    // Assert
    const accepted = momentum.accepted();
    const figures = pacingFigures(
      accepted.map((request) => request.receivedAt),
      LIMIT,
    );
    const copies = new Map<string, Array<string | undefined>>();
    for (const request of accepted) {
      const meeting = notificationOfRemap(request.body);
      if (meeting !== undefined) copies.set(meeting, [...(copies.get(meeting) ?? []), request.headers['idempotency-key'] as string | undefined]);
    }
    const sentTwice = [...copies].filter(([, keys]) => keys.length > 1);
    const jobs = (await state.jobs()).filter((job) => job.kind === 'remap');
    const jobOf = new Map(jobs.map((job) => [notificationOfRemap((job.payload as { request?: unknown }).request), job.id]));
    reportSummary('pacing-sigkill', {
      limit: rateLimitSetting(LIMIT),
      meetings: MEETINGS,
      calls: accepted.length,
      rateLimited: momentum.rateLimited,
      busiest: figures.busiest,
      perWindow: figures.perWindow.join('/'),
      inFlightAtKill: inFlightAtKill.size,
      sentTwice: sentTwice.length,
      killAfterMs: killedAt - startedAt,
      runMs: Date.now() - startedAt,
    });
    expect(momentum.rateLimited).toBe(0);
    expect(figures.busiest).toBeLessThanOrEqual(LIMIT.requests);
    // At least once: every meeting reached Momentum, and every remap job ended succeeded.
    expect(message!.notificationIds.filter((id) => !copies.has(id))).toEqual([]);
    expect(jobs.filter((job) => job.state !== 'succeeded')).toEqual([]);
    // Only a job the dead process held may have gone twice: at most twice, with one Idempotency-Key (its job id).
    for (const [meeting, keys] of sentTwice) {
      expect(inFlightAtKill.has(jobOf.get(meeting)!)).toBe(true);
      expect(keys).toEqual([String(jobOf.get(meeting)), String(jobOf.get(meeting))]);
    }
    // The kill landed on a call Momentum had received: that one went twice (at least once, not exactly once).
    expect(sentTwice.length).toBeGreaterThan(0);
  });
});
