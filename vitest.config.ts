import pg from 'pg';
import { defineConfig } from 'vitest/config';

/**
 * PostgreSQL for the half of the suite that needs it: TEST_DATABASE_URL when set (empty: none),
 * else the local server the README and .ci/run use, when it answers. So `npm test` on a machine
 * with that server runs both engines without a setting, and one without it reports those tests
 * skipped with the reason.
 */
const LOCAL_POSTGRES = 'postgres://postgres@127.0.0.1:5432/test';

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export default defineConfig(async () => {
  const configured = process.env.TEST_DATABASE_URL;
  const database = configured ?? ((await answers(LOCAL_POSTGRES)) ? LOCAL_POSTGRES : '');
  if (database !== '') process.env.TEST_DATABASE_URL = database;
  else delete process.env.TEST_DATABASE_URL;
  return {
    test: {
      include: ['test/**/*.test.ts'],
      exclude: ['test/reliability/**', 'node_modules/**'],
      testTimeout: 30_000,
      hookTimeout: 30_000,
      // Two cores on CI: more workers only add contention for SQLite fsyncs and PostgreSQL.
      maxWorkers: 2,
    },
  };
});
