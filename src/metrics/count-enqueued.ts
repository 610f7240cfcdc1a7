import type { NewJob, Store } from '../store/types.ts';
import type { JobMetrics } from './bridge-metrics.ts';

/**
 * The store with every job it writes counted by kind: jobs made at ingest, enqueued directly
 * (admin, calendar sync) and enqueued as a job's follow-ups. Counted only once the store
 * committed them, so a rolled-back ingest counts nothing.
 */
export function countEnqueuedJobs(store: Store, metrics: Pick<JobMetrics, 'jobsEnqueued'>): Store {
  const count = (jobs: readonly NewJob[]) => {
    const byKind = new Map<string, number>();
    for (const job of jobs) byKind.set(job.kind, (byKind.get(job.kind) ?? 0) + 1);
    for (const [kind, n] of byKind) metrics.jobsEnqueued(kind, n);
  };
  return {
    ...store,
    async ingest(message, jobsFor) {
      // Keyed by event id: an engine that retries its transaction calls jobsFor again for the same event.
      const made = new Map<number, NewJob[]>();
      const result = await store.ingest(message, (event) => {
        const jobs = jobsFor(event);
        made.set(event.id, jobs);
        return jobs;
      });
      count(result.created.flatMap((event) => made.get(event.id) ?? []));
      return result;
    },
    async enqueue(jobs) {
      const stored = await store.enqueue(jobs);
      count(jobs);
      return stored;
    },
    async finish(finish) {
      const applied = await store.finish(finish);
      if (applied && finish.enqueue) count(finish.enqueue);
      return applied;
    },
  };
}
