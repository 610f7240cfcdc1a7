import { describe, expect, it } from 'vitest';

import type { ClaimPacing } from '../../src/store/types.ts';
import { budget, claimPaced, job, type StoreHarness, T0, uniqueKey, useFixture, WINDOW_MS } from './conformance-fixture.ts';

export function pacingConformance(harness: StoreHarness): void {
  describe('pacing: call slots taken by the claim', () => {
    const fixture = useFixture(harness);

    it('when more paced jobs are due than the budget allows, then a claim takes only as many as there are slots, and the rest stay pending unclaimed', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('budget');
      const jobs = await store.enqueue(Array.from({ length: 5 }, () => job({ rateKey: key })));

      const first = await claimPaced(store, 'w1', budget(key));
      const second = await claimPaced(store, 'w2', budget(key));
      const state = await store.rateState(key, 3, WINDOW_MS);

      expect(first.map((claimed) => claimed.id)).toEqual(jobs.slice(0, 3).map((queued) => queued.id));
      expect(second).toEqual([]);
      expect(state.used).toBe(3);
      expect(state.nextFreeAt).toBeGreaterThan(state.at + WINDOW_MS - 10_000);
      for (const waiting of jobs.slice(3)) expect(await store.getJob(waiting.id)).toMatchObject({ state: 'pending', attempts: 0 });
    });

    it('when the budget is spent, then unpaced jobs and jobs of other budgets are still claimed', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('budget');
      const other = uniqueKey('budget');
      await store.enqueue(Array.from({ length: 3 }, () => job({ rateKey: key })));
      await claimPaced(store, 'w1', budget(key));
      const [paced, unpaced, otherBudget] = await store.enqueue([job({ rateKey: key }), job(), job({ rateKey: other })]);
      const pacing: ClaimPacing = { budgets: [...budget(key).budgets, { key: other, limit: { requests: 3, windowMs: WINDOW_MS } }], max: 10 };

      const claimed = await claimPaced(store, 'w2', pacing);

      expect(claimed.map((one) => one.id).sort()).toEqual([unpaced!.id, otherBudget!.id].sort());
      expect(await store.getJob(paced!.id)).toMatchObject({ state: 'pending' });
    });

    it('when a paced claim is limited by max, then no more paced jobs than max are taken, and only their slots are spent', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('budget');
      await store.enqueue(Array.from({ length: 4 }, () => job({ rateKey: key })));

      const claimed = await claimPaced(store, 'w1', { ...budget(key, 10), max: 1 });

      expect(claimed).toHaveLength(1);
      expect((await store.rateState(key, 10, WINDOW_MS)).used).toBe(1);
    });

    it('when older unpaced jobs take the jobs a claim starts at once, then no paced job is claimed to wait behind them, and no slot is taken', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('budget');
      const [unpaced] = await store.enqueue([job()]);
      const [paced] = await store.enqueue([job({ rateKey: key })]);

      const claimed = await claimPaced(store, 'w1', { ...budget(key), max: 1 });

      expect(claimed.map((one) => one.id)).toEqual([unpaced!.id]);
      expect(await store.getJob(paced!.id)).toMatchObject({ state: 'pending' });
      expect((await store.rateState(key, 3, WINDOW_MS)).used).toBe(0);
    });

    it('when a paced job made no call, then its slot is given back and the next job can be claimed', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('budget');
      await store.enqueue(Array.from({ length: 2 }, () => job({ rateKey: key })));
      const [first] = await claimPaced(store, 'w1', budget(key, 1));

      const whileHeld = await claimPaced(store, 'w1', budget(key, 1));
      await store.finish({ jobId: first!.id, leaseOwner: 'w1', outcome: { state: 'skipped', reason: 'unchanged' }, rateSlot: 'refund' });
      const afterRefund = await claimPaced(store, 'w1', budget(key, 1));

      expect(whileHeld).toEqual([]);
      expect(afterRefund).toHaveLength(1);
    });

    it('when a paced call is settled, then its slot counts from when its answer came back', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('budget');
      await store.enqueue([job({ rateKey: key })]);
      const [claimed] = await claimPaced(store, 'w1', budget(key, 1));
      const before = await store.rateState(key, 1, WINDOW_MS);
      await new Promise((resolve) => setTimeout(resolve, 30));

      await store.finish({
        jobId: claimed!.id,
        leaseOwner: 'w1',
        outcome: { state: 'succeeded' },
        attempt: { startedAt: T0, durationMs: 30, status: 200 },
        rateSlot: 'settle',
      });
      const after = await store.rateState(key, 1, WINDOW_MS);

      expect(after.used).toBe(1);
      expect(after.nextFreeAt - before.nextFreeAt).toBeGreaterThanOrEqual(25);
    });

    it('when a paced job is claimed under a call timeout, then until its answer settles it, its slot counts as a call arriving at that timeout', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('budget');
      const pacing: ClaimPacing = { budgets: [{ key, limit: { requests: 1, windowMs: WINDOW_MS }, callTimeoutMs: 30_000 }], max: 10 };
      const [queued] = await store.enqueue([job({ rateKey: key })]);
      await claimPaced(store, 'w1', pacing);

      const unsettled = await store.rateState(key, 1, WINDOW_MS);
      await store.finish({
        jobId: queued!.id,
        leaseOwner: 'w1',
        outcome: { state: 'succeeded' },
        attempt: { startedAt: T0, durationMs: 5, status: 200 },
        rateSlot: 'settle',
      });
      const settled = await store.rateState(key, 1, WINDOW_MS);

      // Never answered (a dead process), the call may have arrived up to its timeout after the claim.
      expect(unsettled.nextFreeAt - unsettled.at).toBeGreaterThan(WINDOW_MS + 30_000 - 5_000);
      expect(settled.used).toBe(1);
      expect(settled.nextFreeAt - settled.at).toBeLessThanOrEqual(WINDOW_MS);
    });

    it('when a retried job’s next run makes no call, then only that run’s slot is given back: the call of its first run still counts', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('budget');
      const [queued] = await store.enqueue([job({ rateKey: key })]);
      await claimPaced(store, 'w1', budget(key, 2));
      await store.finish({
        jobId: queued!.id,
        leaseOwner: 'w1',
        outcome: { state: 'retry', runAt: T0, error: 'HTTP 503' },
        attempt: { startedAt: T0, durationMs: 5, status: 503 },
        rateSlot: 'settle',
      });
      const [again] = await claimPaced(store, 'w1', budget(key, 2));
      const whileRunning = await store.rateState(key, 2, WINDOW_MS);

      await store.finish({ jobId: again!.id, leaseOwner: 'w1', outcome: { state: 'skipped', reason: 'unchanged' }, rateSlot: 'refund' });
      const after = await store.rateState(key, 2, WINDOW_MS);

      expect(again?.id).toBe(queued!.id);
      expect(whileRunning.used).toBe(2);
      expect(after.used).toBe(1);
    });

    it('when a retried job’s next call is settled, then only that call’s slot moves: the first call keeps its own time', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('budget');
      const [queued] = await store.enqueue([job({ rateKey: key })]);
      await claimPaced(store, 'w1', budget(key, 2));
      await store.finish({
        jobId: queued!.id,
        leaseOwner: 'w1',
        outcome: { state: 'retry', runAt: T0, error: 'HTTP 503' },
        attempt: { startedAt: T0, durationMs: 5, status: 503 },
        rateSlot: 'settle',
      });
      await claimPaced(store, 'w1', budget(key, 2));
      const before = await store.rateState(key, 2, WINDOW_MS);
      await new Promise((resolve) => setTimeout(resolve, 30));

      await store.finish({
        jobId: queued!.id,
        leaseOwner: 'w1',
        outcome: { state: 'succeeded' },
        attempt: { startedAt: T0, durationMs: 30, status: 200 },
        rateSlot: 'settle',
      });
      const after = await store.rateState(key, 2, WINDOW_MS);

      // The budget of two is spent: the next slot frees when the oldest call, the first run's, leaves the window.
      expect(after.used).toBe(2);
      expect(after.nextFreeAt).toBe(before.nextFreeAt);
    });

    it('when a budget is blocked, then no paced job is claimed until the block ends, and a shorter block never shortens it', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('budget');
      await store.enqueue([job({ rateKey: key })]);
      const until = Date.now() + 400;
      await store.blockRate(key, until);
      await store.blockRate(key, until - 300);

      const whileBlocked = await claimPaced(store, 'w1', budget(key));
      const state = await store.rateState(key, 3, WINDOW_MS);
      await new Promise((resolve) => setTimeout(resolve, until - Date.now() + 20));
      const afterBlock = await claimPaced(store, 'w1', budget(key));

      expect(whileBlocked).toEqual([]);
      expect(state.blockedUntil).toBe(until);
      expect(state.nextFreeAt).toBe(until);
      expect(afterBlock).toHaveLength(1);
    });

    it('when the next paced job waits for its budget, then nextDueAt is when the next slot frees, not now', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('budget');
      await store.enqueue(Array.from({ length: 2 }, () => job({ rateKey: key, runAt: Date.now() - 1000 })));
      await store.claim({ owner: 'w1', limit: 10, leaseMs: 60_000, pacing: budget(key, 1) });

      const due = await store.nextDueAt(budget(key, 1));
      const lease = Date.now() + 60_000;

      // The lease of the running job expires in a minute; the slot frees a window after it was taken.
      expect(due).toBeGreaterThan(Date.now() + WINDOW_MS - 5_000);
      expect(due).toBeLessThanOrEqual(lease + 1000);
    });

    it('when two stores on one database claim at once, then together they never take more slots than the budget', async () => {
      const { store, reopen } = await fixture.fresh();
      const second = await reopen();
      const key = uniqueKey('budget');
      await store.enqueue(Array.from({ length: 20 }, () => job({ rateKey: key })));

      const claims = await Promise.all(Array.from({ length: 10 }, (_, index) => claimPaced(index % 2 === 0 ? store : second, `w${index}`, budget(key, 4))));

      expect(claims.flat()).toHaveLength(4);
      expect((await store.rateState(key, 4, WINDOW_MS)).used).toBe(4);
    });
  });
}
