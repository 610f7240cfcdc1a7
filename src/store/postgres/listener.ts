import pg from 'pg';

import type { Logger } from '../../core/logger.ts';

/**
 * Cross-instance wake-ups. One dedicated
 * connection LISTENs; when it drops (pg_terminate_backend, failover) it reconnects on its own with
 * backoff and then wakes the workers once, because notifications sent while it was away are lost.
 */

export interface PgListener {
  close(): Promise<void>;
}

export interface PgListenerOptions {
  config: pg.ClientConfig;
  channel: string;
  /** This instance's id: its own notifications are skipped (it already woke its workers in-process). */
  instanceId: string;
  logger: Logger;
  onNotify: () => void;
  /** Called after every successful LISTEN (first connect and each reconnect); for tests and logs. */
  onListening?: (reconnected: boolean) => void;
}

const MIN_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 5000;

export const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

export async function startPgListener(options: PgListenerOptions): Promise<PgListener> {
  const { logger, channel } = options;
  let client: pg.Client | undefined;
  let closing = false;
  let timer: NodeJS.Timeout | undefined;
  let backoff = MIN_BACKOFF_MS;

  const scheduleReconnect = (dropped: pg.Client) => {
    if (closing || client !== dropped || timer !== undefined) return;
    client = undefined;
    dropped.end().catch(() => undefined);
    timer = setTimeout(() => {
      timer = undefined;
      connect(true).catch((error: unknown) => logger.warn('postgres listener reconnect failed', { error, retryInMs: backoff }));
    }, backoff);
    timer.unref();
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
  };

  const connect = async (reconnecting: boolean) => {
    const next = new pg.Client(options.config);
    client = next;
    next.on('error', (error) => {
      logger.warn('postgres listener connection lost', { error });
      scheduleReconnect(next);
    });
    next.on('end', () => scheduleReconnect(next));
    next.on('notification', (message) => {
      if (message.payload !== options.instanceId) options.onNotify();
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${quoteIdent(channel)}`);
    } catch (error) {
      if (reconnecting) scheduleReconnect(next);
      else {
        // At start the caller gets the error: a store that cannot listen is not opened.
        client = undefined;
        next.end().catch(() => undefined);
      }
      throw error;
    }
    if (closing) return next.end();
    backoff = MIN_BACKOFF_MS;
    if (reconnecting) {
      logger.info('postgres listener reconnected', { channel });
      options.onNotify();
    }
    options.onListening?.(reconnecting);
  };

  await connect(false);
  return {
    async close() {
      closing = true;
      if (timer !== undefined) clearTimeout(timer);
      await client?.end().catch(() => undefined);
    },
  };
}
