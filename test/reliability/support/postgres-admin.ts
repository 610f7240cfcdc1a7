import pg from 'pg';
import winston from 'winston';

import { connectionConfig } from '../../../src/store/postgres/pool.ts';

/** The test's own PostgreSQL session, for breaking the bridge's connections and cleaning up. */

/** The application_name the bridge's pool and LISTEN client use in `schema`: only those get cut. */
export function bridgeApplicationName(url: string, schema: string): string {
  const config = connectionConfig({ url, schema, poolMax: 1, logger: winston.createLogger({ silent: true }) });
  return String(config.application_name);
}

export interface PgAdmin {
  /** pg_terminate_backend on every connection of `applicationName`; resolves how many were cut. */
  terminate(applicationName: string): Promise<number>;
  dropSchema(schema: string): Promise<void>;
  close(): Promise<void>;
}

export async function connectAdmin(url: string): Promise<PgAdmin> {
  const client = new pg.Client({ connectionString: url, application_name: 'reliability-test-admin' });
  await client.connect();
  return {
    async terminate(applicationName) {
      const result = await client.query(
        `SELECT pg_terminate_backend(pid) AS cut FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = $1`,
        [applicationName],
      );
      return result.rows.filter((row: { cut: boolean }) => row.cut).length;
    },
    dropSchema: async (schema) => void (await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)),
    close: () => client.end(),
  };
}
