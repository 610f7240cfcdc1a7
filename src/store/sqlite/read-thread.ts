import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

import { createQueries, type Param } from './queries.ts';

/*
 * The body of an admin read thread (read-threads.ts starts it): its own read-only connection to the
 * store's file, answering one statement at a time. WAL lets it read beside the one writer, the
 * main connection; read-only, it cannot become a second writer by mistake.
 */

export interface ReadRequest {
  id: number;
  sql: string;
  params: Param[];
}

export type ReadAnswer = { id: number; rows: unknown[] } | { id: number; error: { message: string; code?: unknown; errcode?: unknown; errstr?: unknown } };

const { location, busyTimeoutMs } = workerData as { location: string; busyTimeoutMs: number };
const db = new DatabaseSync(location, { readOnly: true, timeout: busyTimeoutMs });
const q = createQueries(db);
const port = parentPort!;

port.on('message', ({ id, sql, params }: ReadRequest) => {
  let answer: ReadAnswer;
  try {
    answer = { id, rows: q.all(sql, ...params) };
  } catch (error) {
    // A failing statement (not a failing thread): its error goes back as the read's own.
    const { message, code, errcode, errstr } = error as { message?: unknown; code?: unknown; errcode?: unknown; errstr?: unknown };
    answer = { id, error: { message: String(message), code, errcode, errstr } };
  }
  port.postMessage(answer);
});
