import { describe, expect, it } from 'vitest';

import { getHealth, postRemap, startHealthBridge } from '../admin/support/health-bridge.ts';
import { startStrictMomentum } from '../fakes/strict-momentum.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { ENGINES, testDatabase } from '../support/real-store.ts';
import { waitFor } from '../support/wait-for.ts';

/*
 * Sandbox calls reach no Momentum, so they are not counted against a real key's budget: a bridge
 * that spent its whole budget in sandbox mode and is restarted with a real key calls Momentum at
 * once. The real key's budget is still kept across restarts (pacing-one-bridge.test.ts).
 */

const LIMIT = { requests: 3, windowMs: 600_000 };
const RATE = `${LIMIT.requests}/10m`;

const cleanups = cleanupAfterEach();

describe.each(ENGINES)('Momentum budget after sandbox mode $title', ({ engine, skip }) => {
  it.skipIf(skip)(
    'when the sandbox spent the whole budget and the bridge restarts with a real key, then its first call goes out at once with a full budget',
    async () => {
      // Arrange: the sandbox spends the budget.
      const database = testDatabase(engine, 'sandbox-budget');
      cleanups.push(database.drop);
      const sandbox = await startHealthBridge({ database, env: { MOMENTUM_RATE_LIMIT: RATE } });
      cleanups.push(sandbox.stop);
      const sandboxIds: number[] = [];
      for (let n = 0; n < LIMIT.requests; n += 1) sandboxIds.push(await postRemap(sandbox.url, `sandbox-${n}`));
      const sandboxStore = await sandbox.store();
      await waitFor('the sandbox remaps to succeed', async () => {
        const jobs = await Promise.all(sandboxIds.map((id) => sandboxStore.getJob(id)));
        return jobs.every((job) => job?.state === 'succeeded');
      });
      expect((await getHealth(sandbox.url)).momentum.mode).toBe('sandbox');
      await sandbox.stop();

      // Act: the same database, a real key, and one remap.
      const momentum = await startStrictMomentum(LIMIT);
      cleanups.push(() => momentum.close());
      const real = await startHealthBridge({
        database,
        env: {
          MOMENTUM_RATE_LIMIT: RATE,
          MOMENTUM_API_KEY: 'mk-real-key-after-sandbox',
          MOMENTUM_API_BASE_URL: momentum.url,
          MOMENTUM_RECEIVER_URL: momentum.url,
        },
      });
      cleanups.push(real.stop);
      const postedAt = Date.now();
      const realId = await postRemap(real.url, 'real-0');
      await momentum.waitForAccepted(1, 5_000);

      // Assert: sent at once (the sandbox's calls would hold it for ten minutes), and the budgets as stored.
      expect(momentum.accepted()[0]!.receivedAt - postedAt).toBeLessThan(5_000);
      expect(momentum.rateLimited).toBe(0);
      const store = await real.store();
      await waitFor('the real remap to succeed', async () => (await store.getJob(realId))?.state === 'succeeded');
      expect((await store.rateState('momentum:sandbox', LIMIT.requests, LIMIT.windowMs)).used).toBe(LIMIT.requests);
      expect((await store.rateState('momentum', LIMIT.requests, LIMIT.windowMs)).used).toBe(1);
      const health = await getHealth(real.url);
      expect(health.momentum).toMatchObject({ mode: 'real', budget: 'momentum', lastAnswer: { ok: true } });
    },
  );
});
