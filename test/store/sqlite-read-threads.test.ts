import { describe, expect, it } from 'vitest';

import { runBeforeAdminReadsForTests } from '../../src/store/admin-read-hooks.ts';
import { openStore } from '../../src/store/open-store.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { openRealStore } from '../support/real-store.ts';
import { queryRows } from '../support/stored-state.ts';
import { job } from './conformance-fixture.ts';

/*
 * The SQLite engine's admin reads run on threads of their own, each with a read-only connection
 * to the store's file (src/store/sqlite/read-threads.ts): what only that engine has to prove.
 */

const cleanups = cleanupAfterEach();

async function storeWithOneJob() {
  const real = await openRealStore('sqlite', 'read-threads');
  cleanups.push(real.close);
  const [created] = await real.store.enqueue([job()]);
  return { ...real, jobId: created!.id };
}

describe('SQLite admin read threads', () => {
  it('when a statement that writes reaches the admin read path, then SQLite refuses it as read-only and nothing is written', async () => {
    // Arrange
    const { store, url, jobId } = await storeWithOneJob();
    cleanups.push(runBeforeAdminReadsForTests(() => 'DELETE FROM jobs'));

    // Act
    const read = store.listJobs({ limit: 10 });

    // Assert
    await expect(read).rejects.toMatchObject({ message: expect.stringMatching(/readonly/), errcode: 8 });
    expect(await queryRows(url, 'SELECT id FROM jobs')).toEqual([{ id: jobId }]);
  });

  it('when admin reads run on their threads, then they see every write the main connection committed before them', async () => {
    // Arrange
    const { store, jobId } = await storeWithOneJob();
    expect((await store.listJobs({ limit: 10 })).map((found) => found.id)).toEqual([jobId]);

    // Act
    const [second] = await store.enqueue([job()]);
    const cancelled = await store.cancelJob(jobId, 'not needed');

    // Assert
    expect(cancelled?.state).toBe('cancelled');
    expect((await store.listJobs({ limit: 10, states: ['pending'] })).map((found) => found.id)).toEqual([second!.id]);
    expect((await store.stats()).counts).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'remap', state: 'cancelled', count: 1 }),
        expect.objectContaining({ kind: 'remap', state: 'pending', count: 1 }),
      ]),
    );
  });

  it('when the store closes while an admin read runs, then the read fails as a closed store (503) and the close does not wait for the statement', async () => {
    // Arrange: a read of seconds under way on a thread already started (the first read starts it).
    const { store } = await storeWithOneJob();
    await store.listJobs({ limit: 1 });
    cleanups.push(
      runBeforeAdminReadsForTests(() => 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 30000000) SELECT count(*) FROM c'),
    );
    const read = store.listJobs({ limit: 10 });
    const failed = expect(read).rejects.toMatchObject({ code: 'store_closed', status: 503 });
    // Nothing outside the thread shows its statement has begun: give the message time to arrive.
    await new Promise((resolve) => setTimeout(resolve, 200));

    // Act
    const started = performance.now();
    await store.close();
    const closeMs = performance.now() - started;

    // Assert
    await failed;
    expect(closeMs).toBeLessThan(1000);
  });

  it('when the store is :memory:, then its admin reads answer in-thread (no other connection could see that database)', async () => {
    // Arrange
    const store = await openStore('sqlite::memory:', { adminReadTimeoutMs: 100 });
    cleanups.push(() => store.close());
    const [created] = await store.enqueue([job()]);

    // Act
    const found = await store.listJobs({ limit: 10 });

    // Assert
    expect(found.map((item) => item.id)).toEqual([created!.id]);
  });
});
