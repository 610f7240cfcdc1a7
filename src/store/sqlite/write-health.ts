import type { DatabaseSync, StatementSync } from 'node:sqlite';

import { AppError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';

/**
 * Whether the SQLite store can write, for /readyz. A full disk does not show in a read: the ping's
 * `SELECT 1` still answers while every commit fails with SQLITE_FULL, and a bridge that cannot
 * store cannot ack, so it should leave the load balancer's rotation.
 *
 * The engine tells this module about its own failed writes (the group commit hands it the error of
 * each failed call; a successful commit costs nothing here). The first failure that is the disk's
 * starts a "cannot write" condition with its reason and since when. While it holds, a probe makes
 * a real write through the group commit every PROBE_INTERVAL_MS, on its own timer: recovery needs
 * no /readyz traffic, and /readyz never waits on the disk. Once a probe is committed and its WAL
 * synced, the WAL is checkpointed and truncated (while checkpoints failed it only grew, and it
 * keeps that space until truncated) and the condition clears.
 */

/** How often a store that cannot write tries again. */
export const PROBE_INTERVAL_MS = 2000;

// Primary result codes (the low byte also of every extended code, e.g. SQLITE_IOERR_WRITE).
const SQLITE_IOERR = 10;
const SQLITE_FULL = 13;
// The WAL's fdatasync (wal-sync.ts) fails with Node's codes, not SQLite's.
const FS_REASONS: Record<string, string> = { ENOSPC: 'no space left on device', EDQUOT: 'disk quota exceeded', EIO: 'I/O error' };

/**
 * The reason a write failed for want of disk (or a failing one), in words fit for /readyz;
 * undefined for any other failure (a constraint, a busy lock, the caller's own error).
 */
export function diskFailureReason(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { errcode, errstr, code } = error as { errcode?: unknown; errstr?: unknown; code?: unknown };
  if (typeof errcode === 'number') {
    const primary = errcode & 0xff;
    if (primary !== SQLITE_FULL && primary !== SQLITE_IOERR) return undefined;
    // errstr is SQLite's fixed text for the code ("database or disk is full"), never a path.
    return typeof errstr === 'string' ? errstr : 'disk I/O error';
  }
  return typeof code === 'string' ? FS_REASONS[code] : undefined;
}

export interface WriteHealth {
  /** A write failed: starts the condition when the disk is why. Called on the failure path only. */
  notice(error: unknown): void;
  /** Throws an AppError (503) naming the reason while the store cannot write. */
  assertWritable(): void;
  /** Stops probing; waits for a probe under way. */
  close(): Promise<void>;
}

export interface WriteHealthDeps {
  db: DatabaseSync;
  /** Runs `work` in a durable group-commit batch: resolves once committed and the WAL synced. */
  commit: (work: () => void) => Promise<void>;
  logger: Logger;
  probeIntervalMs?: number;
}

// A version no migration has: the probe's row is inserted and deleted in one transaction.
const PROBE_VERSION = -1;
// More than a page (4 KiB): the probe allocates pages as a growing database does. Rewriting a page
// already there can succeed on a full disk, and gives no sign that the next ingest will.
const PROBE_TEXT = 'write probe '.repeat(700);

export function createWriteHealth({ db, commit, logger, probeIntervalMs = PROBE_INTERVAL_MS }: WriteHealthDeps): WriteHealth {
  let failure: { reason: string; since: number } | undefined;
  let timer: NodeJS.Timeout | undefined;
  let probing: Promise<void> | undefined;
  let closed = false;
  // Prepared on the first probe: a store whose disk never fills never needs them.
  let statements: { insert: StatementSync; remove: StatementSync; checkpoint: StatementSync } | undefined;

  // schema_migrations, whose shape migrations never change, is written and left as it was: the
  // commit writes its pages to the WAL (and the database grows by the probe's pages, once; later
  // probes reuse them from the free list), yet no reader ever sees the row.
  const probeWrite = () => {
    statements ??= {
      insert: db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, 0)'),
      remove: db.prepare('DELETE FROM schema_migrations WHERE version = ?'),
      checkpoint: db.prepare('PRAGMA wal_checkpoint(TRUNCATE)'),
    };
    statements.insert.run(PROBE_VERSION, PROBE_TEXT);
    statements.remove.run(PROBE_VERSION);
  };

  const probe = async () => {
    try {
      // The probe's own failure reaches notice() through the group commit, updating the reason.
      await commit(probeWrite);
      if (closed || failure === undefined || statements === undefined) return;
      // Between batches (they run synchronously), so no transaction is open on the connection.
      const checkpoint = statements.checkpoint.get() as { busy: number; log: number; checkpointed: number } | undefined;
      const { reason, since } = failure;
      failure = undefined;
      logger.info('store can write again', { reason, since: new Date(since).toISOString(), cannotWriteMs: Date.now() - since, walCheckpoint: checkpoint });
      // Busy: another process was reading the WAL. Writes work; later checkpoints let SQLite reuse the
      // WAL from its start, but only a TRUNCATE checkpoint gives its space back.
      if (checkpoint?.busy) logger.warn('store: the WAL could not be truncated after the disk filled', { walCheckpoint: checkpoint });
    } catch (error) {
      if (closed) return;
      // A checkpoint that failed (the database file must grow to take the WAL's pages) is still the disk.
      health.notice(error);
      logger.debug('store write probe failed', { error });
      schedule();
    }
  };

  const schedule = () => {
    if (closed || timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      probing = probe().finally(() => (probing = undefined));
    }, probeIntervalMs);
    // Probing keeps nothing alive: a process on its way out need not wait for the disk.
    timer.unref();
  };

  const health: WriteHealth = {
    notice(error) {
      if (closed) return;
      const reason = diskFailureReason(error);
      if (reason === undefined) return;
      if (failure !== undefined) {
        failure.reason = reason;
        return;
      }
      failure = { reason, since: Date.now() };
      logger.error('store cannot write', { reason, since: new Date(failure.since).toISOString(), error });
      schedule();
    },
    assertWritable() {
      if (failure === undefined) return;
      throw new AppError('store_cannot_write', `cannot write: ${failure.reason} (since ${new Date(failure.since).toISOString()})`, { status: 503 });
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      await probing;
    },
  };
  return health;
}
