import type { DatabaseSync } from 'node:sqlite';
import type { WalSync } from './wal-sync.ts';

/**
 * Group commit for SQLite (issue 3: "concurrent writers are batched into one transaction so
 * throughput does not stop at one fsync per request"). Write calls made in the same turn of the
 * event loop are queued and run in one BEGIN IMMEDIATE … COMMIT, each inside its own SAVEPOINT so a
 * failing call rolls back only its own changes and rejects only its own promise. Every promise
 * settles after the COMMIT returned.
 *
 * Durability is per call. A batch holding a durable call (anything a sender is acknowledged for:
 * ingest, enqueue) is on disk before any of its durable calls settles: with a WAL file, the batch
 * commits with synchronous=NORMAL and its durable calls settle after an fdatasync of the WAL on the
 * thread pool (wal-sync.ts), so the event loop keeps serving while the disk works; without one
 * (`:memory:`), synchronous=FULL. A batch of only queue bookkeeping (claims, finishes, leases,
 * tokens) is not waited for: it survives a process crash, and a power loss can at worst roll back
 * a claim or an outcome, which re-runs the job — delivery is at least once with the same
 * Idempotency-Key anyway.
 */

export interface GroupCommit {
  /** Runs `work` inside the next batch; resolves with its result once the batch is committed. */
  run<T>(work: () => T, options?: { durable?: boolean }): Promise<T>;
  /** Resolves when every queued call has been committed (or failed). */
  drain(): Promise<void>;
}

interface Queued {
  work: () => unknown;
  durable: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

export function createGroupCommit(db: DatabaseSync, walSync?: WalSync): GroupCommit {
  let queue: Queued[] = [];
  let scheduled = false;
  let idle: Array<() => void> = [];
  // Batches committed whose durable calls still wait for their WAL sync.
  let syncing = 0;
  let synchronous: 'FULL' | 'NORMAL' | undefined;
  // Prepared once: these run for every call and every batch, and exec() would parse them each time.
  const statement = (sql: string) => db.prepare(sql);
  const sql = {
    savepoint: statement('SAVEPOINT call'),
    release: statement('RELEASE call'),
    rollbackTo: statement('ROLLBACK TO call'),
    begin: statement('BEGIN IMMEDIATE'),
    commit: statement('COMMIT'),
    rollback: statement('ROLLBACK'),
  };

  // The pragma applies to the next COMMIT; it cannot change inside a transaction.
  const syncMode = (mode: 'FULL' | 'NORMAL') => {
    if (synchronous === mode) return;
    db.exec(`PRAGMA synchronous = ${mode}`);
    synchronous = mode;
  };

  const runOne = (item: Queued, isolated: boolean): Settled => {
    if (isolated) sql.savepoint.run();
    try {
      const value = item.work();
      if (isolated) sql.release.run();
      return { ok: true, value };
    } catch (error) {
      if (isolated) {
        sql.rollbackTo.run();
        sql.release.run();
      }
      return { ok: false, error };
    }
  };

  const commit = (batch: Queued[]): Settled[] => {
    syncMode(walSync === undefined && batch.some((item) => item.durable) ? 'FULL' : 'NORMAL');
    sql.begin.run();
    // A batch of one needs no savepoint: if it fails, the whole transaction is rolled back.
    const isolated = batch.length > 1;
    const settled = batch.map((item) => runOne(item, isolated));
    if (!isolated && settled[0]?.ok === false) {
      sql.rollback.run();
      return settled;
    }
    sql.commit.run();
    return settled;
  };

  const flush = () => {
    scheduled = false;
    const batch = queue;
    queue = [];
    let settled: Settled[];
    try {
      settled = commit(batch);
    } catch (error) {
      // BEGIN or COMMIT failed (busy past the timeout, disk full): nothing of the batch is stored.
      if (db.isTransaction) sql.rollback.run();
      settled = batch.map(() => ({ ok: false, error }));
    }
    const waitForDisk: Array<() => void> = [];
    batch.forEach((item, index) => {
      const outcome = settled[index];
      if (!outcome?.ok) item.reject(outcome?.error);
      else if (item.durable && walSync !== undefined) waitForDisk.push(() => item.resolve(outcome.value));
      else item.resolve(outcome.value);
    });
    if (waitForDisk.length > 0 && walSync !== undefined) {
      syncing += 1;
      const durableItems = batch.filter((item, index) => item.durable && settled[index]?.ok);
      walSync.request().then(
        () => waitForDisk.forEach((resolve) => resolve()),
        // Committed but maybe not on disk: the caller must not acknowledge it (the sender retries).
        (error: unknown) => durableItems.forEach((item) => item.reject(error)),
      ).finally(() => {
        syncing -= 1;
        settleIdle();
      });
    }
    settleIdle();
  };

  const settleIdle = () => {
    if (queue.length > 0 || syncing > 0) return;
    const waiting = idle;
    idle = [];
    for (const done of waiting) done();
  };

  return {
    run<T>(work: () => T, options: { durable?: boolean } = {}): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ work, durable: options.durable ?? true, resolve: resolve as (value: unknown) => void, reject });
        if (!scheduled) {
          scheduled = true;
          // setImmediate runs after the I/O callbacks of this loop turn: every request that arrived
          // together lands in the same batch.
          setImmediate(flush);
        }
      });
    },
    drain() {
      if (queue.length === 0 && syncing === 0) return Promise.resolve();
      return new Promise<void>((resolve) => idle.push(resolve));
    },
  };
}
