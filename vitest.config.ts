import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/reliability/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores on CI: more workers only add contention for SQLite fsyncs and PostgreSQL.
    maxWorkers: 2,
  },
});
