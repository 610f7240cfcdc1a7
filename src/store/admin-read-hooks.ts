import type { Dialect } from './migrations.ts';
import type { ReadQuery } from './read-methods.ts';

const preludesForTests = new Set<(dialect: Dialect) => string>();

/**
 * Test-only: before every admin read, the engine runs `statement(dialect)` on the admin read path
 * (the SQLite read threads, the PostgreSQL admin pool), under the same time limit: a test makes
 * admin reads as slow as a search over a huge store without storing one, or proves what that path
 * may not do. Returns the function that stops it.
 */
export function runBeforeAdminReadsForTests(statement: (dialect: Dialect) => string): () => void {
  preludesForTests.add(statement);
  return () => void preludesForTests.delete(statement);
}

/** `read`, running the test's statements (if any) before each of its own, on the same path. */
export function withTestPreludes(dialect: Dialect, read: ReadQuery): ReadQuery {
  return async (sql, params) => {
    for (const prelude of [...preludesForTests]) await read(prelude(dialect), []);
    return read(sql, params);
  };
}
