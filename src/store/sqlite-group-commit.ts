import type { DatabaseSync } from 'node:sqlite';

/**
 * Group commit for SQLite (issue 3: "concurrent writers are batched into one transaction so
 * throughput does not stop at one fsync per request"). Write calls made in the same turn of the
 * event loop are queued and run in one BEGIN IMMEDIATE … COMMIT, each inside its own SAVEPOINT so a
 * failing call rolls back only its own changes and rejects only its own promise. Every promise
 * settles after the COMMIT returned.
 *
 * Durability is per call: a batch holding a durable call (anything a sender is acknowledged for:
 * ingest, enqueue) commits with synchronous=FULL, so it is fsynced before any promise settles, and
 * that fsync covers every earlier commit in the WAL too. A batch of only queue bookkeeping (claims,
 * finishes, leases, tokens) commits with synchronous=NORMAL: it survives a process crash, and a
 * power loss can at worst roll back a claim or an outcome, which re-runs the job — delivery is at
 * least once with the same Idempotency-Key anyway. Skipping that fsync is what keeps the worker
 * from blocking the event loop on the disk for every job.
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

export function createGroupCommit(db: DatabaseSync): GroupCommit {
  let queue: Queued[] = [];
  let scheduled = false;
  let idle: Array<() => void> = [];
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
    syncMode(batch.some((item) => item.durable) ? 'FULL' : 'NORMAL');
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
    batch.forEach((item, index) => {
      const outcome = settled[index];
      if (outcome?.ok) item.resolve(outcome.value);
      else item.reject(outcome?.error);
    });
    if (queue.length === 0) {
      const waiting = idle;
      idle = [];
      for (const done of waiting) done();
    }
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
      if (queue.length === 0) return Promise.resolve();
      return new Promise<void>((resolve) => idle.push(resolve));
    },
  };
}
