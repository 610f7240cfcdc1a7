import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { openStore } from '../../../src/store/open-store.ts';
import type { Job, Store } from '../../../src/store/types.ts';

/** The real SQLite store in a directory of this test's own, removed by `cleanup`. */
export async function openTestStore(): Promise<{ store: Store; cleanup: () => Promise<void> }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'momentum-handlers-'));
  const store = await openStore(`sqlite:${path.join(dir, 'bridge.db')}`);
  return {
    store,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Enqueues one job and claims it, as a worker would before calling the handler. */
export async function enqueueAndClaim(store: Store, kind: string, payload: unknown, coalesceKey?: string): Promise<Job> {
  const [job] = await store.enqueue([{ kind, payload, coalesceKey }]);
  const claimed = await store.claim({ owner: 'test-worker', limit: 1, leaseMs: 60_000 });
  const mine = claimed.find((candidate) => candidate.id === job?.id);
  if (!mine) throw new Error(`job ${job?.id} was not claimable`);
  return mine;
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
