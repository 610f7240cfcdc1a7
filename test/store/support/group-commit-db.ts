import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync, type StatementResultingChanges } from 'node:sqlite';

import { afterEach, beforeEach } from 'vitest';

export interface GroupCommitDb {
  /** The connection the group commit under test writes through. */
  readonly writer: DatabaseSync;
  /** A second connection: it sees only what has been committed. */
  readonly reader: DatabaseSync;
  /** The rows of `t` committed so far, as the reader sees them. */
  committedRows(): unknown[];
  /** Inserts one row of `t` through the writer. */
  insert(x: number): StatementResultingChanges;
}

/** Registers, for the enclosing describe, a fresh WAL database per test with one table `t (x)`, removed after it. */
export function useGroupCommitDb(): GroupCommitDb {
  let dir: string;
  let writer: DatabaseSync;
  let reader: DatabaseSync;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'group-commit-'));
    const file = path.join(dir, 'db.sqlite');
    writer = new DatabaseSync(file);
    writer.exec('PRAGMA journal_mode = WAL; CREATE TABLE t (x INTEGER NOT NULL)');
    // A second connection sees only what has been committed.
    reader = new DatabaseSync(file);
  });
  afterEach(() => {
    reader.close();
    writer.close();
    rmSync(dir, { recursive: true, force: true });
  });

  return {
    get writer() {
      return writer;
    },
    get reader() {
      return reader;
    },
    committedRows: () =>
      reader
        .prepare('SELECT x FROM t ORDER BY x')
        .all()
        .map((row) => row.x),
    insert: (x: number) => writer.prepare('INSERT INTO t (x) VALUES (?)').run(x),
  };
}
