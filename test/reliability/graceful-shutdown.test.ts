import { afterEach, describe, expect, it } from 'vitest';

import { type FakeMomentum, replies, startFakeMomentum } from '../fakes/fake-momentum.ts';
import { killAllBridges, type RunningBridgeProcess, spawnBridge } from '../support/spawn-bridge.ts';
import { waitForBridge } from './support/bridge-diagnostics.ts';
import { bridgeEnv, reportSummary, scenarioDir } from './support/bridge-env.ts';
import { duplicatesIn, forwardedCounts } from './support/momentum-traffic.ts';
import { buildLoad, countOutcomes, type LoadMessage, postLoad } from './support/salesforce-load.ts';
import { sqliteState, type StoredState, unfinished } from './support/stored-state.ts';

const NOTIFICATIONS = 20;
const CONCURRENCY = 4;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  await killAllBridges();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Scenario {
  fake: FakeMomentum;
  state: StoredState;
  env: (shutdownMs: number) => Record<string, string>;
  load: LoadMessage[];
  notificationIds: string[];
  /** Milliseconds the fake takes to answer; changed between the two processes. */
  setReplyDelay: (ms: number) => void;
}

async function arrange(name: string): Promise<Scenario> {
  const fake = await startFakeMomentum();
  cleanups.push(() => fake.close());
  let replyDelayMs = 0;
  fake.script(() => replies.delayed(replyDelayMs));
  const dir = scenarioDir(name);
  cleanups.push(dir.remove);
  const env = (shutdownMs: number) =>
    bridgeEnv({
      databaseUrl: `sqlite:${dir.sqliteFile}`,
      momentumUrl: fake.url,
      settings: { MOMENTUM_RATE_LIMIT: 'off', WORKER_CONCURRENCY: String(CONCURRENCY), SHUTDOWN_TIMEOUT_MS: String(shutdownMs), MOMENTUM_TIMEOUT_MS: '5000' },
    });
  const load = buildLoad(1, NOTIFICATIONS);
  const notificationIds = load.flatMap((message) => message.notificationIds);
  return { fake, state: sqliteState(dir.sqliteFile), env, load, notificationIds, setReplyDelay: (ms) => void (replyDelayMs = ms) };
}

/** Posts the load and SIGTERMs the bridge once CONCURRENCY remaps are on the wire; resolves after it exited. */
async function terminateDuringDelivery(scenario: Scenario, bridge: RunningBridgeProcess) {
  const outcomes = await postLoad(bridge.url, scenario.load, { concurrency: 1 });
  expect(countOutcomes(outcomes).acked).toBe(1);
  await waitForBridge(bridge, 'remaps in flight at the fake', () => scenario.fake.requests.length >= CONCURRENCY, 20_000);
  const inFlight = scenario.fake.requests.length;
  bridge.child.kill('SIGTERM');
  const exit = await bridge.exited;
  const stopped = bridge.logs.find((line) => line.message === 'worker stopped') ?? {};
  return { exit, inFlight, sentBeforeExit: scenario.fake.requests.length, abandoned: Number(stopped.abandoned), released: Number(stopped.released) };
}

/** A second process on the same store, with a fast fake, finishes the queue. */
async function completeWithNewProcess(scenario: Scenario) {
  scenario.setReplyDelay(0);
  const second = await spawnBridge({ env: scenario.env(5000) });
  await waitForBridge(second, 'the new process to finish the queue', async () => unfinished(await scenario.state.jobs()).length === 0, 30_000);
  second.child.kill('SIGTERM');
  expect(await second.exited).toEqual({ code: 0, signal: null });
}

describe('reliability: graceful shutdown', () => {
  it('when SIGTERM arrives while remaps wait on a slow Momentum and the deadline is long enough, then they finish, the rest stay queued and a new process sends them once', async () => {
    // Arrange: replies take 700 ms; the shutdown deadline is 5 s.
    const scenario = await arrange('sigterm-finish');
    scenario.setReplyDelay(700);
    const first = await spawnBridge({ env: scenario.env(5000) });

    // Act
    const stop = await terminateDuringDelivery(scenario, first);
    const afterStop = await scenario.state.jobs();

    // Assert: clean exit, nothing left running, the in-flight remaps finished as succeeded.
    expect(stop.exit).toEqual({ code: 0, signal: null });
    expect(stop.abandoned).toBe(0);
    expect(afterStop.filter((job) => job.state === 'running')).toEqual([]);
    const remaps = afterStop.filter((job) => job.kind === 'remap');
    expect(remaps.filter((job) => job.state === 'succeeded')).toHaveLength(stop.sentBeforeExit);
    expect(remaps.filter((job) => job.state !== 'succeeded').every((job) => job.state === 'pending' && job.leaseOwner === null)).toBe(true);

    await completeWithNewProcess(scenario);
    const counts = forwardedCounts(scenario.fake.requests);
    expect([...counts.keys()].sort()).toEqual([...scenario.notificationIds].sort());
    expect(duplicatesIn(counts)).toBe(0);
    expect((await scenario.state.jobs()).filter((job) => job.kind === 'remap').every((job) => job.state === 'succeeded')).toBe(true);
    reportSummary('graceful-shutdown (finish)', {
      inFlightAtSigterm: stop.inFlight,
      finishedBeforeExit: stop.sentBeforeExit,
      leftQueued: remaps.filter((job) => job.state === 'pending').length,
      runningAfterExit: afterStop.filter((job) => job.state === 'running').length,
      duplicates: duplicatesIn(counts),
    });
  });

  it('when SIGTERM arrives and Momentum answers after the deadline, then the in-flight remaps are released, not left running, and a new process completes them', async () => {
    // Arrange: replies take 4 s; the shutdown deadline is 300 ms.
    const scenario = await arrange('sigterm-release');
    scenario.setReplyDelay(4000);
    const first = await spawnBridge({ env: scenario.env(300) });

    // Act
    const stop = await terminateDuringDelivery(scenario, first);
    const afterStop = await scenario.state.jobs();

    // Assert: clean exit; the cut-off jobs went back to pending without an owner.
    expect(stop.exit).toEqual({ code: 0, signal: null });
    expect(stop.abandoned).toBe(CONCURRENCY);
    expect(stop.released).toBeGreaterThanOrEqual(stop.abandoned);
    expect(afterStop.filter((job) => job.state === 'running')).toEqual([]);
    const remaps = afterStop.filter((job) => job.kind === 'remap');
    expect(remaps.filter((job) => job.state === 'succeeded')).toEqual([]);
    expect(remaps.every((job) => job.state === 'pending' && job.leaseOwner === null)).toBe(true);

    await completeWithNewProcess(scenario);
    // The cut-off requests reached Momentum once before: at least once, and only those twice.
    const counts = forwardedCounts(scenario.fake.requests);
    expect([...counts.keys()].sort()).toEqual([...scenario.notificationIds].sort());
    expect(duplicatesIn(counts)).toBeLessThanOrEqual(stop.sentBeforeExit);
    expect((await scenario.state.jobs()).filter((job) => job.kind === 'remap').every((job) => job.state === 'succeeded')).toBe(true);
    reportSummary('graceful-shutdown (release)', {
      inFlightAtSigterm: stop.inFlight,
      abandoned: stop.abandoned,
      released: stop.released,
      runningAfterExit: afterStop.filter((job) => job.state === 'running').length,
      duplicates: duplicatesIn(counts),
    });
  });
});
