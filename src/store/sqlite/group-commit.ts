import type { DatabaseSync } from 'node:sqlite';

import type { WalSync } from './wal-sync.ts';

/**
 * Group commit for SQLite. Write calls made in the same turn of the
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
 *
 * Latency is per call too. A call someone is waiting on (an ack, a claim) flushes at the next turn
 * of the event loop, except that a durable call arriving while a WAL sync runs is held until that
 * sync ends (it could not settle before the next sync anyway) and then committed with everything
 * that arrived meanwhile. A `lazy` call (a job's outcome) may wait up to LAZY_FLUSH_MS for
 * company: each COMMIT writes every page the batch touched to the WAL, and jobs finishing close
 * together touch the same index pages, so one commit for many jobs costs little more than one for
 * a single job. Claims are never lazy: a worker that ran out of claimed jobs would sit idle until
 * the timer fired.
 */

/** How long a lazy call may wait for its batch; also bounds how late a job's outcome is visible. */
export const LAZY_FLUSH_MS = 2;
/** A waiting batch (lazy calls, or durable ones held behind a WAL sync) this large flushes at once: waiting longer saves nothing more. */
export const LAZY_FLUSH_SIZE = 256;

export interface GroupCommit {
  /** Runs `work` inside the next batch; resolves with its result once the batch is committed. */
  run<T>(work: () => T, options?: RunOptions): Promise<T>;
  /** Resolves when every queued call has been committed (or failed). */
  drain(): Promise<void>;
}

export interface RunOptions {
  /** On disk before the promise settles (default). False: queue bookkeeping, see above. */
  durable?: boolean;
  /** Nobody waits on it at once: it may wait up to LAZY_FLUSH_MS to share a commit. */
  lazy?: boolean;
}

interface Queued {
  work: () => unknown;
  durable: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * `onFailure` sees the error of every call that fails, and of every WAL sync that fails (the engine
 * watches them for a full disk, see write-health.ts); a call that succeeds costs it nothing.
 */
export function createGroupCommit(db: DatabaseSync, walSync?: WalSync, onFailure?: (error: unknown) => void): GroupCommit {
  let queue: Queued[] = [];
  // The next flush: at the next loop turn (`soon`), or when the WAL sync in flight ends (`afterSync`).
  let scheduled: 'soon' | 'afterSync' | undefined;
  // A lazy call's deadline; runs beside 'afterSync', so a lazy call never waits on a slow disk.
  let lazyTimer: NodeJS.Timeout | undefined;
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
      // No transaction left: SQLite rolled it back itself (see commit()); there is no savepoint to undo.
      if (isolated && db.isTransaction) {
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
    const settled: Settled[] = [];
    for (const item of batch) {
      const outcome = runOne(item, isolated);
      // After SQLITE_FULL or an I/O error SQLite may roll back the whole transaction, not only the
      // failed statement: nothing of the batch is stored, and every call fails with that error
      // (not with the "no transaction is active" of a ROLLBACK that found nothing to undo).
      if (!outcome.ok && !db.isTransaction) return batch.map(() => outcome);
      settled.push(outcome);
    }
    if (!isolated && settled[0]?.ok === false) {
      sql.rollback.run();
      return settled;
    }
    sql.commit.run();
    return settled;
  };

  // flush() runs from a timer: a throw here would end the process. A ROLLBACK that fails leaves the
  // transaction open; the next batch's BEGIN then fails and lands here again, so it is retried.
  const rollbackAfterFailure = () => {
    try {
      if (db.isTransaction) sql.rollback.run();
    } catch {
      // The batch's calls are rejected with the error that brought us here, which says more.
    }
  };

  const cancelLazy = () => {
    clearTimeout(lazyTimer);
    lazyTimer = undefined;
  };

  const flush = () => {
    scheduled = undefined;
    cancelLazy();
    const batch = queue;
    queue = [];
    let settled: Settled[];
    try {
      settled = commit(batch);
    } catch (error) {
      // BEGIN or COMMIT failed (busy past the timeout, disk full): nothing of the batch is stored.
      rollbackAfterFailure();
      settled = batch.map(() => ({ ok: false, error }));
    }
    const waitForDisk: Array<() => void> = [];
    batch.forEach((item, index) => {
      const outcome = settled[index];
      if (!outcome?.ok) {
        onFailure?.(outcome?.error);
        item.reject(outcome?.error);
      } else if (item.durable && walSync !== undefined) waitForDisk.push(() => item.resolve(outcome.value));
      else item.resolve(outcome.value);
    });
    if (waitForDisk.length > 0 && walSync !== undefined) {
      syncing += 1;
      const durableItems = batch.filter((item, index) => item.durable && settled[index]?.ok);
      walSync
        .request()
        .then(
          () => waitForDisk.forEach((resolve) => resolve()),
          // Committed but maybe not on disk: the caller must not acknowledge it (the sender retries).
          (error: unknown) => {
            onFailure?.(error);
            durableItems.forEach((item) => item.reject(error));
          },
        )
        .finally(() => {
          syncing -= 1;
          settleIdle();
        });
    }
    settleIdle();
  };

  const flushSoon = () => {
    if (scheduled === 'soon') return;
    cancelLazy();
    scheduled = 'soon';
    // setImmediate runs after the I/O callbacks of this loop turn: every request that arrived
    // together lands in the same batch.
    setImmediate(flush);
  };

  // A durable call made while a WAL sync runs waits for the next sync however early it is
  // committed. So it waits for the running one to end instead, with every durable call arriving
  // meanwhile, and the lot is committed as one batch just in time for that next sync: fewer,
  // larger commits, each writing the index pages its calls share once.
  const flushAfterSync = () => {
    if (scheduled === 'soon' || scheduled === 'afterSync') return;
    const running = walSync?.inFlight();
    if (running === undefined) return flushSoon();
    scheduled = 'afterSync';
    void running.then(() => {
      if (scheduled === 'afterSync') flushSoon();
    });
  };

  const settleIdle = () => {
    if (queue.length > 0 || syncing > 0) return;
    const waiting = idle;
    idle = [];
    for (const done of waiting) done();
  };

  return {
    run<T>(work: () => T, options: RunOptions = {}): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const durable = options.durable ?? true;
        queue.push({ work, durable, resolve: resolve as (value: unknown) => void, reject });
        if (queue.length >= LAZY_FLUSH_SIZE || (!durable && !options.lazy)) flushSoon();
        else if (durable) flushAfterSync();
        else if (scheduled !== 'soon') lazyTimer ??= setTimeout(flush, LAZY_FLUSH_MS);
      });
    },
    drain() {
      if (queue.length > 0) flushSoon();
      if (queue.length === 0 && syncing === 0) return Promise.resolve();
      return new Promise<void>((resolve) => idle.push(resolve));
    },
  };
}
