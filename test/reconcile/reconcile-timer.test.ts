import { afterEach, expect, it } from 'vitest';

import { reconcileJob } from '../../src/reconcile/reconcile-job.ts';
import { type ReconcileTimer, startReconcileTimer } from '../../src/reconcile/reconcile-timer.ts';
import { captureLogs } from '../support/log-capture.ts';
import { openRealStore, type RealStore } from '../support/real-store.ts';
import { describeEachEngine, executeSql } from '../support/stored-state.ts';

/*
 * When a reconcile walk starts (docs/operations.md, reconcile): a walk whose page ended dead waits
 * an interval like one that succeeded, so a key that cannot list spends one call an interval, not
 * one a minute.
 */

const HOUR = 3_600_000;
let opened: RealStore | undefined;
let timer: ReconcileTimer | undefined;
afterEach(async () => {
  await timer?.stop();
  await opened?.close();
  [opened, timer] = [undefined, undefined];
});

describeEachEngine('the reconcile timer', (engine) => {
  it('when the last walk ended dead a minute ago, then no walk starts; an interval after it, one does', async () => {
    // Arrange: a walk's page that ended dead.
    opened = await openRealStore(engine, 'reconcile_timer');
    const { store } = opened;
    let clock = Date.now();
    const [page] = await store.enqueue([reconcileJob({ from: clock - 30 * 24 * HOUR, to: clock, pageNumber: 1 })]);
    await executeSql(opened.url, `UPDATE jobs SET state = 'dead', updated_at = $1, last_error = 'HTTP 403' WHERE id = $2`, [clock - 60_000, page!.id]);
    timer = startReconcileTimer({ store, leases: store.channels, logger: captureLogs().logger, intervalMs: HOUR, windowDays: 30, now: () => clock });

    // Act
    const soon = await timer.tick();
    clock += HOUR;
    const later = await timer.tick();

    // Assert
    expect([soon, later]).toEqual([false, true]);
    const pending = await store.listJobs({ kinds: ['reconcile'], states: ['pending'], limit: 5 });
    expect(pending).toHaveLength(1);
  });
});
