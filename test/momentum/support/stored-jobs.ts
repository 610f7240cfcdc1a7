import type { Job, Store } from '../../../src/store/types.ts';
import { claimJob } from '../../support/real-store.ts';

/** Enqueues one job and claims it, as a worker would before calling the handler. */
export async function enqueueAndClaim(store: Store, kind: string, payload: unknown, coalesceKey?: string): Promise<Job> {
  const [job] = await store.enqueue([{ kind, payload, coalesceKey }]);
  if (job === undefined) throw new Error('enqueue returned nothing');
  return claimJob(store, job.id, 1);
}

/** A remap Momentum already accepted: what the "unchanged" rule compares against. */
export async function recordSucceeded(store: Store, kind: string, payload: unknown, coalesceKey: string): Promise<Job> {
  const job = await enqueueAndClaim(store, kind, payload, coalesceKey);
  await store.finish({ jobId: job.id, leaseOwner: 'test-worker', outcome: { state: 'succeeded', result: { requestId: 'earlier' } } });
  return job;
}

/** Wraps a store so a test can see which lookups the handler made (and which it did not). */
export function spyLastSucceeded(store: Store): Pick<Store, 'lastSucceeded'> & { lookups: string[] } {
  const lookups: string[] = [];
  return {
    lookups,
    lastSucceeded: (kind, coalesceKey) => {
      lookups.push(`${kind}:${coalesceKey}`);
      return store.lastSucceeded(kind, coalesceKey);
    },
  };
}
