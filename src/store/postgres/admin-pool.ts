import pg from 'pg';

import { isAppError } from '../../core/errors.ts';
import { adminReadsBusy, adminReadTimedOut } from '../admin-read-errors.ts';
import type { ReadQuery } from '../read-methods.ts';
import type { Row } from '../row-mappers.ts';
import { connectionConfig, isConnectionError, type PgSettings } from './pool.ts';

/*
 * The PostgreSQL engine's admin reads on a small pool of their own. Sharing the main pool, ten
 * slow searches held every connection and acks waited for one until they failed; here admin reads
 * can hold at most DATABASE_ADMIN_POOL_MAX connections, never one the ack path needs. Each
 * connection has statement_timeout = ADMIN_READ_TIMEOUT, so the server itself stops a read past it
 * (SQLSTATE 57014), and a read waits for a free connection at most that long: both are 503s.
 */

export interface AdminPoolSettings extends PgSettings {
  /** DATABASE_ADMIN_POOL_MAX. */
  adminPoolMax: number;
  /** ADMIN_READ_TIMEOUT, in ms. */
  adminReadTimeoutMs: number;
}

export interface AdminPool {
  read: ReadQuery;
  close(): Promise<void>;
}

const QUERY_CANCELED = '57014';
// pg-pool's words when no connection came free within connectionTimeoutMillis (not a failed connect).
const POOL_WAIT_EXPIRED = /timeout exceeded when trying to connect/i;

export function createAdminPool(settings: AdminPoolSettings): AdminPool {
  const { logger, adminReadTimeoutMs: timeoutMs } = settings;
  const pool = new pg.Pool({
    ...connectionConfig(settings),
    max: settings.adminPoolMax,
    statement_timeout: timeoutMs,
    connectionTimeoutMillis: timeoutMs,
    idleTimeoutMillis: 30_000,
  });
  // As in pool.ts: a connection the server drops while idle or mid-query must not end the process.
  pool.on('error', (error) => logger.warn('postgres admin read connection lost', { error }));
  pool.on('connect', (client) => client.on('error', (error) => logger.warn('postgres admin read connection error', { error })));

  const once = async (sql: string, params: unknown[]): Promise<Row[]> => {
    try {
      return (await pool.query(sql, params)).rows as Row[];
    } catch (error) {
      if ((error as { code?: unknown })?.code === QUERY_CANCELED) throw adminReadTimedOut(timeoutMs, error);
      if (POOL_WAIT_EXPIRED.test(String((error as { message?: unknown })?.message))) throw adminReadsBusy(timeoutMs, error);
      throw error;
    }
  };

  return {
    async read(sql, params) {
      try {
        return await once(sql, [...params]);
      } catch (error) {
        // A read is idempotent: one dropped connection (a failover, a terminated backend) is tried again once.
        if (isAppError(error) || !isConnectionError(error)) throw error;
        return once(sql, [...params]);
      }
    },
    close: () => pool.end(),
  };
}
