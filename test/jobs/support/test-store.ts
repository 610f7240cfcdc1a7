import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import winston from 'winston';

import { openSqliteStore } from '../../../src/store/sqlite/store.ts';
import type { Store } from '../../../src/store/types.ts';

/** A real SQLite store on its own file in its own temp directory, removed on close. */
export async function openTestStore(): Promise<Store> {
  const dir = mkdtempSync(join(tmpdir(), 'jobs-worker-'));
  const store = await openSqliteStore(join(dir, 'bridge.db'), winston.createLogger({ silent: true }));
  await store.migrate();
  return {
    ...store,
    async close() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
