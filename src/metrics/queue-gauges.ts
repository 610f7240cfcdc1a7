import { Gauge, type Registry } from 'prom-client';

import type { Logger } from '../core/logger.ts';
import type { AdminReads, JobState, StoreStats } from '../store/types.ts';

// Every state, so a kind's gauge drops to 0 instead of vanishing when its last job leaves a state.
const JOB_STATES = Object.keys({
  pending: true,
  running: true,
  succeeded: true,
  dead: true,
  superseded: true,
  skipped: true,
  cancelled: true,
} satisfies Record<JobState, true>) as JobState[];

type Snapshot = { ok: true; stats: StoreStats } | { ok: false };

/**
 * Gauges read from the store at scrape time (`store.stats()`): the queue as the database holds
 * it, so every instance on one database reports the same numbers and a restart loses nothing.
 * One stats() call per scrape, shared by the gauges (prom-client collects them concurrently).
 */
export function registerQueueGauges(registry: Registry, store: Pick<AdminReads, 'stats'>, logger: Logger): void {
  let inflight: Promise<Snapshot> | undefined;
  const snapshot = () =>
    (inflight ??= store
      .stats()
      .then(
        (stats): Snapshot => ({ ok: true, stats }),
        (error: unknown): Snapshot => {
          // The scrape still answers: bridge_store_up says why the queue gauges are missing.
          logger.warn('metrics: store stats unavailable', { error });
          return { ok: false };
        },
      )
      .finally(() => (inflight = undefined)));

  new Gauge({
    name: 'bridge_store_up',
    help: 'Whether the store answered the queue statistics query at this scrape (1) or not (0)',
    registers: [registry],
    async collect() {
      this.set((await snapshot()).ok ? 1 : 0);
    },
  });

  new Gauge({
    name: 'bridge_jobs',
    help: 'Jobs in the store by kind and state (pending, running, succeeded, dead, superseded, skipped, cancelled)',
    labelNames: ['kind', 'state'],
    registers: [registry],
    async collect() {
      const current = await snapshot();
      this.reset();
      if (!current.ok) return;
      for (const kind of new Set(current.stats.counts.map((row) => row.kind))) {
        for (const state of JOB_STATES) this.set({ kind, state }, 0);
      }
      for (const row of current.stats.counts) this.set({ kind: row.kind, state: row.state }, row.count);
    },
  });

  new Gauge({
    name: 'bridge_oldest_pending_job_age_seconds',
    help: 'Age of the oldest pending job of each kind (absent when none is pending)',
    labelNames: ['kind'],
    registers: [registry],
    async collect() {
      const current = await snapshot();
      this.reset();
      if (!current.ok) return;
      for (const row of current.stats.oldestPending) this.set({ kind: row.kind }, row.ageMs / 1000);
    },
  });

  new Gauge({
    name: 'bridge_jobs_dead_last_24h',
    help: 'Jobs of each kind that ended dead in the last 24 hours (from the store, shared by all instances)',
    labelNames: ['kind'],
    registers: [registry],
    async collect() {
      const current = await snapshot();
      this.reset();
      if (!current.ok) return;
      for (const row of current.stats.deadLast24h) this.set({ kind: row.kind }, row.count);
    },
  });
}
