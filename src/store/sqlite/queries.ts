import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';

import type { Row } from '../row-mappers.ts';
import { toSqlite } from '../sql.ts';

export type Param = SQLInputValue;

/** Prepared-statement access for the SQLite engine: each SQL text is prepared once and reused. */
export interface SqliteQueries {
  get(sql: string, ...params: Param[]): Row | undefined;
  all(sql: string, ...params: Param[]): Row[];
  run(sql: string, ...params: Param[]): number;
  /** An INSERT without RETURNING (cheaper in SQLite): the new rowid, or undefined when nothing was inserted. */
  insert(sql: string, ...params: Param[]): number | undefined;
}

export function createQueries(db: DatabaseSync): SqliteQueries {
  const cache = new Map<string, StatementSync>();
  const prepare = (sql: string): StatementSync => {
    let statement = cache.get(sql);
    if (statement === undefined) {
      statement = db.prepare(toSqlite(sql));
      cache.set(sql, statement);
    }
    return statement;
  };
  return {
    get: (sql, ...params) => prepare(sql).get(...params) as Row | undefined,
    all: (sql, ...params) => prepare(sql).all(...params) as Row[],
    run: (sql, ...params) => Number(prepare(sql).run(...params).changes),
    insert: (sql, ...params) => {
      const { changes, lastInsertRowid } = prepare(sql).run(...params);
      return Number(changes) === 1 ? Number(lastInsertRowid) : undefined;
    },
  };
}
