import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';

import { AppError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import { createSqlInstanceStore } from '../instance-store.ts';
import { createJobsNotifier } from '../jobs-notifier.ts';
import { createMeetingIdentities, driveSync, type StepRunner } from '../meeting-identities.ts';
import { createSqlPubSubCursors } from '../pubsub-cursors.ts';
import { createRefusalStore } from '../refusal-sql.ts';
import { createRetentionStore } from '../retention-sql.ts';
import { attemptFromRow, eventFromRow, jobFromRow } from '../row-mappers.ts';
import { ADMIN_READ_DEFAULTS } from '../settings.ts';
import { SQL } from '../sql.ts';
import { createSqlChannelStore } from '../sql-channel-store.ts';
import { createSqlDeliveredStore } from '../sql-delivered-store.ts';
import { createSqlMatchStore } from '../sql-match-store.ts';
import { createSqlSubscriptionStore } from '../sql-subscription-store.ts';
import { logKeyOf, type Store } from '../types.ts';
import { createGroupCommit } from './group-commit.ts';
import { claimJobs, enqueueJobs, finishJob, ingestMessage, readRateState } from './jobs.ts';
import { migrateSqlite } from './migrate.ts';
import { createQueries, type Param } from './queries.ts';
import { startReadThreads } from './read-threads.ts';
import { sqliteReads } from './reads.ts';
import { enqueueReplays } from './replays.ts';
import { createWalSync } from './wal-sync.ts';
import { createWriteHealth } from './write-health.ts';

// Another process on the same file (a restart overlapping the old one) holds the write lock briefly.
const BUSY_TIMEOUT_MS = 5000;

const connectionWatchersForTests = new Set<(db: DatabaseSync, location: string) => void>();

/**
 * Test-only: hands each connection the engine opens to `watcher`, so a test can set a
 * per-connection PRAGMA on it (max_page_count makes writes fail with the genuine SQLITE_FULL of a
 * full disk without filling one). Returns the function that stops watching.
 */
export function watchSqliteConnectionsForTests(watcher: (db: DatabaseSync, location: string) => void): () => void {
  connectionWatchersForTests.add(watcher);
  return () => void connectionWatchersForTests.delete(watcher);
}

export interface SqliteStoreOptions {
  /** ADMIN_READ_TIMEOUT, in ms: how long an admin read may take on its read thread (not for `:memory:`). */
  adminReadTimeoutMs?: number;
}

/** `:memory:` or a file path; the file's directory is created when missing. */
export async function openSqliteStore(location: string, logger: Logger, options: SqliteStoreOptions = {}): Promise<Store> {
  if (location !== ':memory:') mkdirSync(path.dirname(path.resolve(location)), { recursive: true });
  const db = new DatabaseSync(location, { timeout: BUSY_TIMEOUT_MS, enableForeignKeyConstraints: true });
  // WAL lets reads run beside the writer. An ingested message is on disk (the WAL fsynced) before
  // the sender is acknowledged; group-commit.ts and wal-sync.ts say how.
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA wal_autocheckpoint = 10000');
  db.exec('PRAGMA synchronous = FULL');
  db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.exec('PRAGMA foreign_keys = ON');
  migrateSqlite(db);

  const q = createQueries(db);
  const walSync = location === ':memory:' ? undefined : createWalSync(`${location}-wal`);
  // A full disk fails writes while reads still answer: the ping reports it (write-health.ts).
  const health = createWriteHealth({ db, commit: (work) => batches.run(work), logger });
  const batches = createGroupCommit(db, walSync, (error) => health.notice(error));
  const notifier = createJobsNotifier(logger);
  let closed = false;
  for (const watch of connectionWatchersForTests) watch(db, location);

  const ensureOpen = () => {
    if (closed) throw new AppError('store_closed', 'the store is closed', { status: 503 });
  };
  const write = async <T>(work: () => T): Promise<T> => {
    ensureOpen();
    return batches.run(work);
  };
  // Queue bookkeeping: losing it to a power cut only re-runs a job (see group-commit.ts).
  const bookkeeping = async <T>(work: () => T, lazy = false): Promise<T> => {
    ensureOpen();
    return batches.run(work, { durable: false, lazy });
  };
  // Reads need no batch: batches run synchronously, so a read never sees half a transaction.
  const read = async <T>(work: () => T): Promise<T> => {
    ensureOpen();
    return work();
  };
  const clock = (now?: number) => now ?? Date.now();
  // Admin reads never run on the event loop the acks need (read-threads.ts); `:memory:` has no file to share.
  const readThreads =
    location === ':memory:'
      ? undefined
      : startReadThreads({ location, timeoutMs: options.adminReadTimeoutMs ?? ADMIN_READ_DEFAULTS.timeoutMs, busyTimeoutMs: BUSY_TIMEOUT_MS, logger });
  const adminRead = readThreads?.read ?? ((sql: string, params: ReadonlyArray<Param>) => read(() => q.all(sql, ...params)));
  const steps = (statement: { sql: string; params: unknown[] }) => q.all(statement.sql, ...(statement.params as Param[]));
  // Bookkeeping too: a lost batch of deletions is made again by the next pass, and the acks waiting on the WAL sync do not wait for it.
  const retentionSteps: StepRunner = { write: (run) => bookkeeping(() => driveSync(run(), steps)), read: (run) => read(() => driveSync(run(), steps)) };

  return {
    engine: 'sqlite',
    channels: createSqlChannelStore({ dialect: 'sqlite', query: (text, params = []) => write(() => q.all(text, ...(params as Param[]))) }),
    subscriptions: createSqlSubscriptionStore({ dialect: 'sqlite', query: (text, params = []) => write(() => q.all(text, ...(params as Param[]))) }),
    pubsub: createSqlPubSubCursors({ dialect: 'sqlite', query: (text, params = []) => write(() => q.all(text, ...(params as Param[]))) }),
    instances: createSqlInstanceStore({ dialect: 'sqlite', query: (text, params = []) => write(() => q.all(text, ...(params as Param[]))) }),
    matches: createSqlMatchStore({ dialect: 'sqlite', query: (text, params = []) => write(() => q.all(text, ...(params as Param[]))) }),
    meetings: createMeetingIdentities({
      // Bookkeeping like a job's outcome: the mapping that uses it finishes after it in the same WAL, and a lost one is resolved again.
      write: (steps) => bookkeeping(() => driveSync(steps(), (statement) => q.all(statement.sql, ...(statement.params as Param[])))),
      read: (steps) => read(() => driveSync(steps(), (statement) => q.all(statement.sql, ...(statement.params as Param[])))),
    }),
    delivered: createSqlDeliveredStore({ dialect: 'sqlite', query: (text, params = []) => write(() => q.all(text, ...(params as Param[]))) }),
    retention: createRetentionStore('sqlite', retentionSteps),
    // Bookkeeping too: a power cut loses at most one flush of counts, and no ack waits for them.
    refusals: createRefusalStore(retentionSteps),
    migrate: () => read(() => void migrateSqlite(db)),
    ping: () =>
      read(() => {
        q.get(SQL.ping);
        health.assertWritable();
      }),
    async close() {
      if (closed) return;
      closed = true;
      await readThreads?.close();
      await health.close();
      await batches.drain();
      await walSync?.close();
      db.close();
    },

    async ingest(message, jobsFor) {
      const { created, duplicates, jobCount } = await write(() => ingestMessage(q, message, jobsFor, Date.now()));
      if (jobCount > 0) notifier.notify();
      return { created, duplicates };
    },
    async enqueue(jobs) {
      const created = await write(() => enqueueJobs(q, jobs, Date.now()));
      if (created.length > 0) notifier.notify();
      return created;
    },
    async enqueueReplays(replays, guard) {
      if (replays.length === 0) return [];
      const results = await write(() => enqueueReplays(q, replays, guard, Date.now()));
      if (results.some((result) => 'created' in result)) notifier.notify();
      return results;
    },
    claim: (options) => bookkeeping(() => claimJobs(q, { ...options, now: clock(options.now) })),
    async extendLeases(jobIds, owner, leaseMs) {
      await bookkeeping(() => {
        const now = Date.now();
        for (const id of jobIds) q.run(SQL.extendLease, id, owner, now + leaseMs, now);
      });
    },
    async finish(finish) {
      // An outcome alone has no one waiting on it but the run's own log line: it shares a commit with
      // its neighbours. One that enqueues jobs holds its worker slot until stored (see run-job.ts).
      const { finished, wake } = await bookkeeping(() => finishJob(q, finish, Date.now()), !finish.enqueue?.length);
      if (wake) notifier.notify();
      return finished;
    },
    async releaseLeases(owner) {
      const released = await bookkeeping(() => q.all(SQL.releaseLeases, owner, Date.now()).length);
      if (released > 0) notifier.notify();
      return released;
    },
    pendingOfKey: (coalesceKey) => read(() => mapOptional(q.get(SQL.pendingOfKey, coalesceKey), (row) => Number(row.id))),
    nextDueAt: (pacing) =>
      read(() => {
        const now = Date.now();
        const first = (sql: string, ...params: Param[]) => q.get(sql, ...params)?.run_at;
        const times: unknown[] = [q.get(SQL.nextLeaseExpiry)?.lease_until];
        if (pacing === undefined) times.push(first(SQL.nextPendingDue));
        else {
          times.push(first(SQL.nextPendingDueUnpaced));
          for (const budget of pacing.budgets) {
            const due = first(SQL.nextPendingDueOf, budget.key);
            // A paced job waits for its budget's next free slot: the worker sleeps until then, claiming nothing.
            if (due == null || budget.limit === undefined) times.push(due);
            else times.push(Math.max(Number(due), readRateState(q, logKeyOf(budget), budget.limit.requests, budget.limit.windowMs, now).nextFreeAt));
          }
        }
        const known = times.filter((time) => time != null).map(Number);
        return known.length === 0 ? undefined : Math.min(...known);
      }),

    getJob: (id) => read(() => mapOptional(q.get(SQL.getJob, id), jobFromRow)),
    getAttempts: (jobId) => read(() => q.all(SQL.getAttempts, jobId).map(attemptFromRow)),
    getEvent: (id) => read(() => mapOptional(q.get(SQL.getEvent, id), eventFromRow)),
    lastSucceeded: (kind, coalesceKey) => read(() => mapOptional(q.get(SQL.lastSucceeded, kind, coalesceKey), jobFromRow)),

    ...sqliteReads(q, adminRead, write),

    rateState: (key, requests, windowMs) => read(() => readRateState(q, key, requests, windowMs, Date.now())),
    blockRate: (key, untilMs) => bookkeeping(() => void q.run(SQL.blockRate, key, untilMs)),

    onJobsAvailable: (listener) => notifier.subscribe(listener),
  };
}

function mapOptional<R, T>(row: R | undefined, map: (row: R) => T): T | undefined {
  return row === undefined ? undefined : map(row);
}
