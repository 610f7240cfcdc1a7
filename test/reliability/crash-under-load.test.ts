import { afterEach, describe, expect, it } from 'vitest';

import { replies, startFakeMomentum } from '../fakes/fake-momentum.ts';
import { killAllBridges, spawnBridge } from '../support/spawn-bridge.ts';
import { waitFor } from '../support/wait-for.ts';
import { waitForBridge } from './support/bridge-diagnostics.ts';
import { bridgeEnv, reportSummary, scenarioDir } from './support/bridge-env.ts';
import { duplicatesIn, forwardedCounts } from './support/momentum-traffic.ts';
import { buildLoad, countOutcomes, type LoadMessage, notificationOfRemap, postLoad, type PostOutcome } from './support/salesforce-load.ts';
import { sqliteState, type StoredState, unfinished } from './support/stored-state.ts';

const MESSAGES = 200;
const PER_MESSAGE = 10;
const WORKER_CONCURRENCY = 8;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  await killAllBridges();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const idsOf = (messages: readonly LoadMessage[]) => messages.flatMap((message) => message.notificationIds);
const storedIds = async (state: StoredState) => new Set([...(await state.eventKeys())].map((key) => key.replace(/^salesforce:/, '')));
const drained = (state: StoredState) => async () => unfinished(await state.jobs()).length === 0;

describe('reliability: crash under load', () => {
  it('when the bridge is SIGKILLed while 2 000 notifications pour in, then after a restart every acked one is forwarded and none that was never stored', async () => {
    // Arrange: a fast fake (a few ms per reply keeps remaps in flight when the kill lands), pacing off.
    const fake = await startFakeMomentum();
    cleanups.push(() => fake.close());
    fake.script(() => replies.delayed(5));
    const dir = scenarioDir('crash');
    cleanups.push(dir.remove);
    const env = bridgeEnv({
      databaseUrl: `sqlite:${dir.sqliteFile}`,
      momentumUrl: fake.url,
      settings: { MOMENTUM_RATE_LIMIT: 'off', WORKER_CONCURRENCY: String(WORKER_CONCURRENCY), RETRY_SCHEDULE: '0s,200ms,500ms,1s' },
    });
    const state = sqliteState(dir.sqliteFile);
    const load = buildLoad(MESSAGES, PER_MESSAGE);
    const first = await spawnBridge({ env });

    // Act 1: 16 posts at a time. The second half waits until remaps flow, so the kill lands with
    // messages and remaps both in flight; SIGKILL once 60 % of the messages are acked.
    let acked = 0;
    let killed = false;
    // Never rejects: the 60 % wait below carries the timeout and the message.
    const remapsFlowing = waitFor('remaps to reach the fake', () => fake.requests.length >= 10, 60_000).catch(() => undefined);
    const posting = postLoad(first.url, load, {
      concurrency: 16,
      stop: () => killed,
      beforePost: async (message) => {
        if (message.index >= MESSAGES / 2) await remapsFlowing;
      },
      onOutcome: (_m, outcome) => void (outcome.kind === 'acked' && acked++),
    });
    await waitForBridge(first, '60 % of the messages acked', () => acked >= MESSAGES * 0.6, 60_000);
    first.child.kill('SIGKILL');
    killed = true;
    const forwardedBeforeKill = fake.requests.length;
    const outcomes = await posting;
    expect(await first.exited).toMatchObject({ signal: 'SIGKILL' });
    // The kill landed mid-load: some messages were never answered, and none was refused before it.
    const atKill = countOutcomes(outcomes);
    expect(atKill.failed + atKill.not_sent).toBeGreaterThan(0);
    expect(atKill.refused).toBe(0);
    // Jobs whose outcome the kill kept from being stored: the only ones that may run (and send) twice.
    const runningAtKill = (await state.jobs()).filter((job) => job.state === 'running');
    const remapsRunningAtKill = new Set(
      runningAtKill.filter((job) => job.kind === 'remap').map((job) => notificationOfRemap((job.payload as { request?: unknown }).request)),
    );

    // Act 2: restart on the same file; it finishes the queue (orphaned jobs after their lease expires).
    const restartedAt = Date.now();
    const second = await spawnBridge({ env });
    await waitForBridge(second, 'the restarted bridge to drain the queue', drained(state), 90_000);
    const drainMs = Date.now() - restartedAt;

    // Assert 1: every acked notification is stored and forwarded; nothing never stored is forwarded.
    const ackedMessages = load.filter((_m, i) => outcomes[i]?.kind === 'acked');
    const unackedMessages = load.filter((_m, i) => outcomes[i]?.kind !== 'acked');
    const stored = await storedIds(state);
    const afterRestart = forwardedCounts(fake.requests);
    const ackedIds = idsOf(ackedMessages);
    expect(ackedIds.filter((id) => !stored.has(id))).toEqual([]);
    expect(ackedIds.filter((id) => !afterRestart.has(id))).toEqual([]);
    const unackedIds = idsOf(unackedMessages);
    const neverStored = unackedIds.filter((id) => !stored.has(id));
    expect(neverStored.filter((id) => afterRestart.has(id))).toEqual([]);
    expect([...afterRestart.keys()].filter((id) => !stored.has(id))).toEqual([]);
    // Stored without an ack is possible only for a message whose answer the kill cut off.
    const storedUnacked = unackedMessages.filter((message) => message.notificationIds.some((id) => stored.has(id)));
    const kindOf = (message: LoadMessage): PostOutcome['kind'] => outcomes[load.indexOf(message)]?.kind ?? 'not_sent';
    expect(storedUnacked.filter((message) => kindOf(message) !== 'failed')).toEqual([]);
    // Only remaps still running at the kill can reach Momentum twice, and at most twice.
    const duplicatesAfterRestart = duplicatesIn(afterRestart);
    const sentTwice = [...afterRestart].filter(([, count]) => count > 1);
    expect(sentTwice.filter(([id, count]) => count > 2 || !remapsRunningAtKill.has(id))).toEqual([]);
    expect((await state.jobs()).filter((job) => job.kind === 'remap' && job.state !== 'succeeded')).toEqual([]);

    // Act 3: Salesforce redelivers every unacked message (protocols.md §2); the bridge acks them all.
    const redelivery = await postLoad(second.url, unackedMessages, { concurrency: 16 });
    await waitForBridge(second, 'the redelivered notifications to be forwarded', drained(state), 60_000);

    // Assert 2: all 2 000 forwarded; notifications stored before the kill were de-duplicated, not sent again.
    expect(countOutcomes(redelivery)).toEqual({ acked: unackedMessages.length, refused: 0, failed: 0, not_sent: 0 });
    const final = forwardedCounts(fake.requests);
    expect(idsOf(load).filter((id) => !final.has(id))).toEqual([]);
    expect(final.size).toBe(MESSAGES * PER_MESSAGE);
    const resentByRedelivery = idsOf(storedUnacked).filter((id) => final.get(id) !== afterRestart.get(id));
    expect(resentByRedelivery).toEqual([]);
    expect((await state.counts()).events).toBe(MESSAGES * PER_MESSAGE);

    const duplicates = duplicatesIn(final);
    reportSummary('crash-under-load', {
      notifications: MESSAGES * PER_MESSAGE,
      ackedBeforeKill: ackedIds.length,
      cutAtKill: atKill.failed * PER_MESSAGE,
      notSentBeforeKill: atKill.not_sent * PER_MESSAGE,
      storedButUnacked: idsOf(storedUnacked).length,
      forwardedBeforeKill,
      runningAtKill: runningAtKill.length,
      remapsRunningAtKill: remapsRunningAtKill.size,
      restartDrainMs: drainMs,
      redeliveredMessages: unackedMessages.length,
      forwardedDistinct: final.size,
      remapRequests: fake.requests.length,
      duplicates,
    });
    expect(duplicates).toBe(duplicatesAfterRestart);
  });
});
