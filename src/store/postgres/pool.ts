import { setTimeout as delay } from 'node:timers/promises';

import pg from 'pg';

import type { Logger } from '../../core/logger.ts';
import type { Row } from '../row-mappers.ts';

/**
 * The PostgreSQL connection layer: a pool whose BIGINTs arrive as numbers, whose connections use
 * the store's schema, and transactions that survive a dropped connection (pg_terminate_backend, a
 * failover) by retrying on a fresh connection when nothing can have been committed.
 */

export type Client = pg.ClientBase;

export interface PgSettings {
  url: string;
  schema?: string;
  poolMax: number;
  logger: Logger;
}

const ATTEMPTS = 3;

// Epoch-ms times and ids are BIGINT; they stay far below 2^53, so plain numbers are exact.
// Passed per pool (not pg.types.setTypeParser) so other pg users in the process are not affected.
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === pg.types.builtins.INT8 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

/** Connection settings shared by the pool and the LISTEN client. */
export function connectionConfig(settings: PgSettings): pg.ClientConfig {
  return {
    connectionString: settings.url,
    types,
    application_name: `crm-sync-bridge${settings.schema ? `:${settings.schema}` : ''}`.slice(0, 63),
    connectionTimeoutMillis: 5000,
    ...(settings.schema ? { options: `-c search_path=${settings.schema}` } : {}),
  };
}

/** A dropped or refused connection: the statement did not run to completion on the server. */
export function isConnectionError(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (code.startsWith('08') || code.startsWith('57P') || /^E(CONNRESET|CONNREFUSED|PIPE|TIMEDOUT)$/.test(code))) return true;
  return (
    typeof message === 'string' && /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(message)
  );
}

/** Deadlock or serialization failure: PostgreSQL rolled the transaction back; running it again is safe. */
const isConflict = (error: unknown) => ['40001', '40P01'].includes(String((error as { code?: unknown })?.code));

export interface PgDatabase {
  pool: pg.Pool;
  /** Runs `work` in BEGIN … COMMIT; retried on a new connection if it failed before COMMIT was sent. */
  transaction<T>(work: (client: Client) => Promise<T>): Promise<T>;
  /** One idempotent statement outside a transaction, retried when the connection dropped. */
  query(sql: string, params?: unknown[]): Promise<Row[]>;
}

export function createPgDatabase(settings: PgSettings): PgDatabase {
  const { logger } = settings;
  const pool = new pg.Pool({ ...connectionConfig(settings), max: settings.poolMax, idleTimeoutMillis: 30_000 });
  // An idle connection killed by the server emits 'error' on the pool; without a listener that
  // would crash the process. The pool drops the connection and opens a new one when needed.
  pool.on('error', (error) => logger.warn('postgres idle connection lost', { error }));
  // A terminated backend can emit 'error' on a client after the per-query listener is gone; an
  // 'error' event nobody listens to would end the process (pg_terminate_backend, failovers).
  pool.on('connect', (client) => client.on('error', (error) => logger.warn('postgres connection error', { error })));
  const onClientError = (error: Error) => logger.warn('postgres connection lost during a query', { error });

  const attempt = async <T>(work: (client: Client) => Promise<T>): Promise<{ value: T } | { error: unknown; retry: boolean }> => {
    const client = await pool.connect();
    client.on('error', onClientError);
    let committing = false;
    try {
      await client.query('BEGIN');
      const value = await work(client);
      committing = true;
      await client.query('COMMIT');
      client.release();
      return { value };
    } catch (error) {
      const rolledBack = await client.query('ROLLBACK').then(
        () => true,
        () => false,
      );
      // A connection that could not roll back is broken: release(error) destroys it.
      client.release(rolledBack ? undefined : (error as Error));
      // After COMMIT was sent the outcome is unknown, so a retry could store things twice.
      return { error, retry: !committing && (isConnectionError(error) || isConflict(error)) };
    } finally {
      client.removeListener('error', onClientError);
    }
  };

  return {
    pool,
    async transaction(work) {
      for (let round = 1; ; round += 1) {
        const outcome = await attempt(work).catch((error: unknown) => ({ error, retry: isConnectionError(error) }));
        if ('value' in outcome) return outcome.value;
        if (!outcome.retry || round >= ATTEMPTS) throw outcome.error;
        // Code and message only: a refused or dropped connection has no stack worth a line of its own.
        const { code, message } = (outcome.error ?? {}) as { code?: unknown; message?: unknown };
        logger.warn('postgres transaction retried', { round, error: { code, message: String(message) } });
        await delay(25 * round);
      }
    },
    async query(sql, params = []) {
      for (let round = 1; ; round += 1) {
        try {
          return (await pool.query(sql, params)).rows as Row[];
        } catch (error) {
          if (!isConnectionError(error) || round >= ATTEMPTS) throw error;
          await delay(25 * round);
        }
      }
    },
  };
}
