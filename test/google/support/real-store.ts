import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { openStore } from '../../../src/store/open-store.ts';
import type { Job, Store } from '../../../src/store/types.ts';

/** The real SQLite store on a file of this test's own; `file` lets other connections share it. */
export async function openTestStore(): Promise<{ store: Store; file: string; cleanup: () => Promise<void> }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'google-store-'));
  const file = path.join(dir, 'bridge.db');
  const store = await openStore(`sqlite:${file}`);
  return {
    store,
    file,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Claims the pending job with this id, as a worker would before calling its handler. */
export async function claim(store: Store, jobId: number): Promise<Job> {
  const claimed = await store.claim({ owner: 'test-worker', limit: 100, leaseMs: 60_000 });
  const mine = claimed.find((job) => job.id === jobId);
  if (!mine) throw new Error(`job ${jobId} was not claimable`);
  return mine;
}
