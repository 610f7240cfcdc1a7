import { describe, expect, it } from 'vitest';

import type { ClaimPacing } from '../../src/store/types.ts';
import { claimPaced, job, type StoreHarness, uniqueKey, useFixture, WINDOW_MS } from './conformance-fixture.ts';

/** A budget whose calls are logged under `logKey`, its jobs naming it by `key`. */
const logged = (key: string, logKey: string, requests = 2): ClaimPacing => ({ budgets: [{ key, logKey, limit: { requests, windowMs: WINDOW_MS } }], max: 10 });

/** Where a budget's calls are counted (PacedBudget.logKey), and the bridge processes on the database. */
export function budgetLogConformance(harness: StoreHarness): void {
  describe('pacing: a budget counted in a log of its own', () => {
    const fixture = useFixture(harness);

    it('when one budget is claimed under two logs in turn, then each log counts only its own calls, and the second starts with a full budget', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('budget');
      const [sandboxLog, realLog] = [`${key}:sandbox`, `${key}:real`];
      const jobs = await store.enqueue(Array.from({ length: 4 }, () => job({ rateKey: key })));

      const underSandbox = await claimPaced(store, 'w1', logged(key, sandboxLog));
      const sandboxSpent = await claimPaced(store, 'w1', logged(key, sandboxLog));
      const underReal = await claimPaced(store, 'w2', logged(key, realLog));

      expect(underSandbox.map((one) => one.id)).toEqual(jobs.slice(0, 2).map((one) => one.id));
      expect(sandboxSpent).toEqual([]);
      expect(underReal.map((one) => one.id)).toEqual(jobs.slice(2).map((one) => one.id));
      expect((await store.rateState(sandboxLog, 2, WINDOW_MS)).used).toBe(2);
      expect((await store.rateState(realLog, 2, WINDOW_MS)).used).toBe(2);
      expect((await store.rateState(key, 2, WINDOW_MS)).used).toBe(0);
    });

    it('when a log is blocked, then the same budget under another log is not', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('budget');
      await store.enqueue([job({ rateKey: key })]);
      await store.blockRate(`${key}:sandbox`, Date.now() + WINDOW_MS);

      const blocked = await claimPaced(store, 'w1', logged(key, `${key}:sandbox`));
      const other = await claimPaced(store, 'w1', logged(key, `${key}:real`));

      expect(blocked).toEqual([]);
      expect(other).toHaveLength(1);
    });
  });

  describe('instances: the bridge processes on the database', () => {
    const fixture = useFixture(harness);
    const beat = (id: string, startedAt: number) => ({ id, host: 'host-a', pid: 42, version: '1.2.3', startedAt });

    it('when instances beat, then those seen since a time are listed newest started first; a forgotten one and one not seen in a day are gone', async () => {
      const { store } = await fixture.fresh();
      const now = Date.now();
      await store.instances.beat(beat('old', now - 90_000_000), now - 90_000_000, now - 180_000_000);
      await store.instances.beat(beat('a', now - 5_000), now - 5_000, now - 86_400_000);
      await store.instances.beat(beat('b', now - 1_000), now - 1_000, now - 86_400_000);
      await store.instances.beat(beat('a', now - 5_000), now, now - 86_400_000);

      const seen = await store.instances.seenSince(now - 2_000);
      await store.instances.forget('b');
      const afterForget = await store.instances.seenSince(0);

      expect(seen).toEqual([
        { ...beat('b', now - 1_000), seenAt: now - 1_000 },
        { ...beat('a', now - 5_000), seenAt: now },
      ]);
      expect(afterForget.map((entry) => entry.id)).toEqual(['a']);
    });
  });
}
