import { Worker } from 'node:worker_threads';

import { AppError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import { adminReadFailed, adminReadsBusy, adminReadTimedOut } from '../admin-read-errors.ts';
import type { ReadQuery } from '../read-methods.ts';
import type { Row } from '../row-mappers.ts';
import type { Param } from './queries.ts';
import type { ReadAnswer, ReadRequest } from './read-thread.ts';

/*
 * The SQLite engine's admin reads, off the event loop. node:sqlite runs a statement synchronously
 * on the thread that calls it, so a search over a large store run on the main thread would hold
 * every ack for its whole length. Here each read goes to a worker thread with its own read-only
 * connection (read-thread.ts); the main connection stays the only writer.
 *
 * A read waits for a thread at most ADMIN_READ_TIMEOUT (then it fails with admin_reads_busy) and
 * runs at most ADMIN_READ_TIMEOUT, as on PostgreSQL's admin pool. One running past it is abandoned:
 * its thread is terminated and replaced, and the read fails with admin_read_timeout. Termination cannot stop SQLite inside a statement (V8
 * only stops the thread once the statement returns to JavaScript), so an abandoned thread still
 * uses a core until its statement ends; while SQL_THREADS_MAX threads run admin SQL, abandoned ones
 * included, no further read starts. A thread that dies is replaced and its read fails with
 * admin_read_failed. Every failure is a 503, never the process.
 */

/** Admin reads that run at once: a slow search does not hold the console's other panels or a metrics scrape. */
const READ_THREADS = 2;
/** Threads running admin SQL at most, counting abandoned ones still finishing their statement. */
const SQL_THREADS_MAX = 3;

const THREAD_FILE = new URL('./read-thread.ts', import.meta.url);

export interface ReadThreadsOptions {
  /** The database file (never `:memory:`: another connection could not see it). */
  location: string;
  /** ADMIN_READ_TIMEOUT, in ms. */
  timeoutMs: number;
  /** How long a read waits on a lock (WAL recovery, a truncating checkpoint) before failing. */
  busyTimeoutMs: number;
  logger: Logger;
}

export interface ReadThreads {
  read: ReadQuery;
  /** Fails what is queued or running, and stops the threads (an abandoned one ends with its statement). */
  close(): Promise<void>;
}

interface Pending {
  request: ReadRequest;
  resolve: (rows: Row[]) => void;
  reject: (error: unknown) => void;
  timer: NodeJS.Timeout;
}

interface Thread {
  worker: Worker;
  running?: Pending;
}

export function startReadThreads(options: ReadThreadsOptions): ReadThreads {
  const { timeoutMs, logger } = options;
  const queue: Pending[] = [];
  const live: Thread[] = [];
  const abandoned = new Set<Worker>();
  let nextId = 1;
  let closed = false;

  const start = (): Thread => {
    const worker = new Worker(THREAD_FILE, { workerData: { location: options.location, busyTimeoutMs: options.busyTimeoutMs } });
    // The store's close() stops it; an idle thread must not keep a process alive that forgot to.
    worker.unref();
    const thread: Thread = { worker };
    worker.on('message', (answer: ReadAnswer) => settle(thread, answer));
    worker.on('error', (error) => lost(thread, error));
    worker.on('exit', (code) => {
      if (abandoned.delete(worker)) pump();
      else lost(thread, new Error(`admin read thread exited with code ${code}`));
    });
    live.push(thread);
    return thread;
  };

  const pump = () => {
    while (!closed && queue.length > 0) {
      const runningSql = live.filter((thread) => thread.running !== undefined).length + abandoned.size;
      if (runningSql >= SQL_THREADS_MAX) return;
      // Threads start on demand: a store nobody reads from for the admin never starts one.
      const thread = live.find((candidate) => candidate.running === undefined) ?? (live.length < READ_THREADS ? start() : undefined);
      if (thread === undefined) return;
      const pending = queue.shift()!;
      thread.running = pending;
      clearTimeout(pending.timer);
      pending.timer = setTimeout(() => expire(pending), timeoutMs);
      thread.worker.postMessage(pending.request);
    }
  };

  const retire = (thread: Thread) => {
    const index = live.indexOf(thread);
    if (index >= 0) live.splice(index, 1);
    thread.running = undefined;
  };

  const settle = (thread: Thread, answer: ReadAnswer) => {
    const pending = thread.running;
    if (pending === undefined || pending.request.id !== answer.id) return;
    clearTimeout(pending.timer);
    thread.running = undefined;
    if ('rows' in answer) pending.resolve(answer.rows as Row[]);
    else
      pending.reject(Object.assign(new Error(answer.error.message), { code: answer.error.code, errcode: answer.error.errcode, errstr: answer.error.errstr }));
    pump();
  };

  const lost = (thread: Thread, error: unknown) => {
    if (closed || !live.includes(thread)) return;
    const pending = thread.running;
    retire(thread);
    logger.warn('admin read thread stopped; the next read starts another', { error });
    if (pending !== undefined) {
      clearTimeout(pending.timer);
      pending.reject(adminReadFailed(error));
    }
    pump();
  };

  const expire = (pending: Pending) => {
    const queued = queue.indexOf(pending);
    if (queued >= 0) {
      queue.splice(queued, 1);
      pending.reject(adminReadsBusy(timeoutMs));
      return;
    }
    const thread = live.find((candidate) => candidate.running === pending);
    if (thread === undefined) return;
    retire(thread);
    abandoned.add(thread.worker);
    void thread.worker.terminate();
    logger.warn('admin read stopped at ADMIN_READ_TIMEOUT', { timeoutMs, sql: pending.request.sql.slice(0, 200) });
    pending.reject(adminReadTimedOut(timeoutMs));
    pump();
  };

  return {
    read(sql, params) {
      if (closed) return Promise.reject(new AppError('store_closed', 'the store is closed', { status: 503 }));
      return new Promise<Row[]>((resolve, reject) => {
        const pending: Pending = {
          request: { id: nextId++, sql, params: params as Param[] },
          resolve,
          reject,
          timer: setTimeout(() => expire(pending), timeoutMs),
        };
        queue.push(pending);
        pump();
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      const error = new AppError('store_closed', 'the store is closed', { status: 503 });
      for (const pending of [...queue.splice(0), ...live.flatMap((thread) => (thread.running ? [thread.running] : []))]) {
        clearTimeout(pending.timer);
        pending.reject(error);
      }
      // A thread inside a statement ends only with it (see above): only idle ones are waited for.
      const idle = live.filter((thread) => thread.running === undefined).map((thread) => thread.worker.terminate());
      for (const thread of live.filter((candidate) => candidate.running !== undefined)) void thread.worker.terminate();
      live.length = 0;
      await Promise.all(idle);
    },
  };
}
