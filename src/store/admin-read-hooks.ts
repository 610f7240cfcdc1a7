import type { Dialect } from './migrations.ts';
import type { ReadQuery } from './read-methods.ts';

const preludesForTests = new Set<(dialect: Dialect) => string>();

/**
 * Test-only: before every admin read, the engine runs `statement(dialect)` on the admin read path
 * (the SQLite read thread, the PostgreSQL admin pool), so a test can make admin reads as slow as a
 * search over a huge store without storing one. Returns the function that stops it.
 */
export function slowAdminReadsForTests(statement: (dialect: Dialect) => string): () => void {
  preludesForTests.add(statement);
  return () => void preludesForTests.delete(statement);
}

/** `read` with the test preludes (if any) run before each statement, on the same path. */
export function withTestPreludes(dialect: Dialect, read: ReadQuery): ReadQuery {
  return async (sql, params) => {
    for (const prelude of [...preludesForTests]) await read(prelude(dialect), []);
    return read(sql, params);
  };
}
