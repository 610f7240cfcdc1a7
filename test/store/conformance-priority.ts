import { describe, expect, it } from 'vitest';

import { JOB_PRIORITY } from '../../src/store/types.ts';
import { budget, claimPaced, job, type StoreHarness, T0, uniqueKey, useFixture } from './conformance-fixture.ts';

export function priorityConformance(harness: StoreHarness): void {
  describe('priority classes', () => {
    const fixture = useFixture(harness);

    it('when operator, live and bulk jobs are due, then a claim takes operator actions first, then live changes, then bulk work, whatever their run times', async () => {
      const { store } = await fixture.fresh();
      const key = uniqueKey('budget');
      const [bulk, live, operator] = await store.enqueue([
        job({ rateKey: key, priority: JOB_PRIORITY.bulk, runAt: T0 }),
        job({ rateKey: key, priority: JOB_PRIORITY.live, runAt: T0 + 10 }),
        job({ rateKey: key, priority: JOB_PRIORITY.operator, runAt: T0 + 20 }),
      ]);

      const order: number[] = [];
      for (let round = 0; round < 3; round += 1) order.push(...(await claimPaced(store, 'w1', budget(key, 1000), 1)).map((claimed) => claimed.id));

      expect(order).toEqual([operator!.id, live!.id, bulk!.id]);
      const stats = await store.stats(T0 + 1000);
      expect(stats.pendingByPriority).toEqual([]);
    });

    it('when jobs wait in several classes, then the stats count pending jobs per class', async () => {
      const { store } = await fixture.fresh();
      await store.enqueue([job({ priority: JOB_PRIORITY.bulk }), job({ priority: JOB_PRIORITY.bulk }), job({ priority: JOB_PRIORITY.operator }), job()]);

      const stats = await store.stats(T0 + 1000);

      expect(stats.pendingByPriority).toEqual([
        { kind: 'remap', priority: 'operator', count: 1 },
        { kind: 'remap', priority: 'live', count: 1 },
        { kind: 'remap', priority: 'bulk', count: 2 },
      ]);
    });
  });
}
