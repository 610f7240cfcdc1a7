import { setTimeout as delay } from 'node:timers/promises';

import { afterEach, describe, expect, it } from 'vitest';

import { startFakeMomentum } from '../fakes/fake-momentum.ts';
import { databaseUrlWithSchema, newSchemaName } from '../support/real-store.ts';
import { killAllBridges, spawnBridge } from '../support/spawn-bridge.ts';
import { waitForBridge } from './support/bridge-diagnostics.ts';
import { bridgeEnv, reportSummary } from './support/bridge-env.ts';
import { duplicatesIn, forwardedCounts } from './support/momentum-traffic.ts';
import { bridgeApplicationName, connectAdmin } from './support/postgres-admin.ts';
import { buildLoad, countOutcomes, type LoadMessage, postLoad, type PostOutcome } from './support/salesforce-load.ts';
import { postgresState, unfinished } from './support/stored-state.ts';

const url = process.env.TEST_DATABASE_URL;
const MESSAGES = 60;
const PER_MESSAGE = 5;
const OUTAGE_MS = 1500;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  await killAllBridges();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const readyStatus = (base: string) =>
  fetch(`${base}/readyz`, { signal: AbortSignal.timeout(10_000) }).then(
    (response) => response.status,
    () => 0,
  );

describe.skipIf(!url)(`reliability: database outage (PostgreSQL)${url ? '' : ' (skipped: TEST_DATABASE_URL is not set)'}`, () => {
  it('when the bridge loses every PostgreSQL connection during load, then nothing is falsely acked, it recovers on its own and every acked notification is delivered', async () => {
    // Arrange: the bridge in a fresh schema, its connections named so only they are cut.
    const schema = newSchemaName('reliability_db');
    const admin = await connectAdmin(url!);
    cleanups.push(
      () => admin.close(),
      () => admin.dropSchema(schema),
    );
    const fake = await startFakeMomentum();
    cleanups.push(() => fake.close());
    const bridge = await spawnBridge({
      env: bridgeEnv({
        databaseUrl: databaseUrlWithSchema(url!, schema),
        momentumUrl: fake.url,
        settings: {
          MOMENTUM_RATE_LIMIT: 'off',
          WORKER_CONCURRENCY: '4',
          DATABASE_POOL_MAX: '4',
          RETRY_SCHEDULE: '0s,200ms,500ms,1s,1s,1s,1s,1s,1s,1s',
        },
      }),
    });
    const state = await postgresState(url!, schema);
    cleanups.push(() => state.close());
    const applicationName = bridgeApplicationName(url!, schema);
    const load = buildLoad(MESSAGES, PER_MESSAGE);

    // Act: post the load; after the first acks, cut the bridge's connections every 20 ms for 1.5 s.
    let acked = 0;
    const posting = postLoad(bridge.url, load, { concurrency: 4, onOutcome: (_m, outcome) => void (outcome.kind === 'acked' && acked++) });
    await waitForBridge(bridge, 'the first acks', () => acked >= 5, 30_000);
    let cut = 0;
    const readiness: number[] = [];
    const outageEnds = Date.now() + OUTAGE_MS;
    while (Date.now() < outageEnds) {
      cut += await admin.terminate(applicationName);
      if (readiness.length < Math.floor((OUTAGE_MS - (outageEnds - Date.now())) / 250)) void readyStatus(bridge.url).then((status) => readiness.push(status));
      await delay(20);
    }
    const outcomes = await posting;
    await waitForBridge(bridge, '/readyz to answer 200 again', async () => (await readyStatus(bridge.url)) === 200, 30_000);

    // Assert: the process survived, answered every refused message with a 500/503, and never acked what it did not store.
    expect(bridge.child.exitCode).toBeNull();
    const refusals = outcomes.filter((outcome): outcome is Extract<PostOutcome, { kind: 'refused' }> => outcome.kind === 'refused');
    expect(outcomes.filter((outcome) => outcome.kind === 'failed' || outcome.kind === 'not_sent')).toEqual([]);
    expect(refusals.filter((outcome) => outcome.status !== 500 && outcome.status !== 503)).toEqual([]);
    // The outage reached the senders (else this scenario would have tested nothing).
    expect(refusals.length).toBeGreaterThan(0);
    const stored = new Set([...(await state.eventKeys())].map((key) => key.replace(/^salesforce:/, '')));
    const ackedMessages = load.filter((_m, i) => outcomes[i]?.kind === 'acked');
    const ackedIds = ackedMessages.flatMap((message) => message.notificationIds);
    expect(ackedIds.filter((id) => !stored.has(id))).toEqual([]);

    // Act: Salesforce redelivers what was refused; the recovered bridge acks it.
    const refused: LoadMessage[] = load.filter((_m, i) => outcomes[i]?.kind !== 'acked');
    const redelivery = await postLoad(bridge.url, refused, { concurrency: 4 });
    await waitForBridge(bridge, 'every job to finish', async () => unfinished(await state.jobs()).length === 0, 60_000);

    // Assert: recovered on its own; every notification delivered; nothing dead.
    expect(countOutcomes(redelivery).acked).toBe(refused.length);
    const counts = forwardedCounts(fake.requests);
    const allIds = load.flatMap((message) => message.notificationIds);
    expect(allIds.filter((id) => !counts.has(id))).toEqual([]);
    expect(counts.size).toBe(allIds.length);
    const jobs = await state.jobs();
    expect(jobs.filter((job) => job.state === 'dead')).toEqual([]);
    expect(await readyStatus(bridge.url)).toBe(200);

    reportSummary('database-outage', {
      notifications: allIds.length,
      connectionsCut: cut,
      outageMs: OUTAGE_MS,
      ackedDuringLoad: ackedIds.length,
      refusedMessages: refusals.length,
      refusalStatuses: [...new Set(refusals.map((outcome) => outcome.status))].join('/') || 'none',
      readyzDuringOutage: readiness.join('/') || 'none',
      redelivered: refused.length,
      forwardedDistinct: counts.size,
      duplicates: duplicatesIn(counts),
    });
  });
});
