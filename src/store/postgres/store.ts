import { randomUUID } from 'node:crypto';

import type { Logger } from '../../core/logger.ts';
import { createSqlInstanceStore } from '../instance-store.ts';
import { finishWakes, keysOf } from '../job-rules.ts';
import { createJobsNotifier } from '../jobs-notifier.ts';
import { createMeetingIdentities, driveAsync, type StepRunner } from '../meeting-identities.ts';
import { createSqlPubSubCursors } from '../pubsub-cursors.ts';
import { createRefusalStore } from '../refusal-sql.ts';
import { createRetentionStore } from '../retention-sql.ts';
import { attemptFromRow, coalesceKeyOf, eventFromRow, jobFromRow, type Row } from '../row-mappers.ts';
import { ADMIN_READ_DEFAULTS } from '../settings.ts';
import { SQL } from '../sql.ts';
import { createSqlChannelStore } from '../sql-channel-store.ts';
import { createSqlDeliveredStore } from '../sql-delivered-store.ts';
import { createSqlMatchStore } from '../sql-match-store.ts';
import { createSqlSubscriptionStore } from '../sql-subscription-store.ts';
import { type FinishJob, logKeyOf, type Store } from '../types.ts';
import { createAdminPool } from './admin-pool.ts';
import { startCountFold } from './count-fold.ts';
import { claimJobs, enqueueJobs, finishFinalParams, finishJob, ingestMessage, isPlainFinal, lockKeys, readRateState, releaseLeases } from './jobs.ts';
import { startPgListener } from './listener.ts';
import { ensureSchema, migratePostgres } from './migrate.ts';
import { type Client, connectionConfig, createPgDatabase } from './pool.ts';
import { postgresReads } from './reads.ts';
import { enqueueReplays } from './replays.ts';
import { PG } from './sql.ts';

export interface PostgresStoreOptions {
  poolMax: number;
  /** DATABASE_ADMIN_POOL_MAX: the admin reads' own pool (admin-pool.ts). */
  adminPoolMax?: number;
  /** ADMIN_READ_TIMEOUT, in ms: each admin read's statement_timeout, and its longest wait for a connection. */
  adminReadTimeoutMs?: number;
  schema?: string;
  logger: Logger;
  /** Called after each LISTEN (re)connect; lets tests wait for the listener's recovery. */
  onListening?: (reconnected: boolean) => void;
}

export async function openPostgresStore(url: string, options: PostgresStoreOptions): Promise<Store> {
  const { logger, schema } = options;
  const settings = { url, schema, poolMax: options.poolMax, logger };
  const db = createPgDatabase(settings);
  const admin = createAdminPool({
    ...settings,
    adminPoolMax: options.adminPoolMax ?? ADMIN_READ_DEFAULTS.poolMax,
    adminReadTimeoutMs: options.adminReadTimeoutMs ?? ADMIN_READ_DEFAULTS.timeoutMs,
  });
  const instanceId = randomUUID();
  // Channels are database-wide; a schema gets its own so isolated stores do not wake each other.
  const channel = `bridge_jobs${schema ? `_${schema}` : ''}`.slice(0, 63);
  const notifier = createJobsNotifier(logger);
  let closed = false;
  let listener: Awaited<ReturnType<typeof startPgListener>> | undefined;
  try {
    await ensureSchema(db, schema);
    await migratePostgres(db);
    listener = await startPgListener({
      config: connectionConfig(settings),
      channel,
      instanceId,
      logger,
      onNotify: notifier.notify,
      onListening: options.onListening,
    });
  } catch (error) {
    await db.pool.end().catch(() => undefined);
    await admin.close().catch(() => undefined);
    throw error;
  }

  /** A write that may make jobs claimable: NOTIFY commits with it, and this instance wakes at once. */
  const writeAndWake = async <T>(work: (client: Client) => Promise<{ value: T; wake: boolean }>): Promise<T> => {
    const { value, wake } = await db.transaction(async (client) => {
      const outcome = await work(client);
      if (outcome.wake) await client.query(PG.notify, [channel, instanceId]);
      return outcome;
    });
    if (wake) notifier.notify();
    return value;
  };
  const finishInTransaction = (finish: FinishJob) =>
    writeAndWake(async (client) => {
      const { finished, wake } = await finishJob(client, finish, Date.now());
      return { value: finished, wake };
    });
  const one = async <T>(sql: string, params: unknown[], map: (row: Record<string, unknown>) => T) => {
    const [row] = await db.query(sql, params);
    return row === undefined ? undefined : map(row);
  };
  const fold = startCountFold(db, logger);
  const steps: StepRunner = {
    write: (run) => db.transaction((client) => driveAsync(run(), async (statement) => (await client.query(statement.sql, statement.params)).rows as Row[])),
    read: (run) => driveAsync(run(), (statement) => db.query(statement.sql, statement.params)),
  };
  return {
    engine: 'postgres',
    channels: createSqlChannelStore({ dialect: 'postgres', query: (text, params = []) => db.query(text, [...params]) }),
    subscriptions: createSqlSubscriptionStore({ dialect: 'postgres', query: (text, params = []) => db.query(text, [...params]) }),
    pubsub: createSqlPubSubCursors({ dialect: 'postgres', query: (text, params = []) => db.query(text, [...params]) }),
    instances: createSqlInstanceStore({ dialect: 'postgres', query: (text, params = []) => db.query(text, [...params]) }),
    matches: createSqlMatchStore({ dialect: 'postgres', query: (text, params = []) => db.query(text, [...params]) }),
    meetings: createMeetingIdentities({
      write: (steps) =>
        db.transaction(async (client) => {
          await client.query(PG.lockMeetings);
          return driveAsync(steps(), async (statement) => (await client.query(statement.sql, statement.params)).rows as Row[]);
        }),
      read: (steps) => driveAsync(steps(), (statement) => db.query(statement.sql, statement.params)),
    }),
    delivered: createSqlDeliveredStore({ dialect: 'postgres', query: (text, params = []) => db.query(text, [...params]) }),
    // Each batch its own short transaction: row locks on old rows only, held for milliseconds.
    retention: createRetentionStore('postgres', steps),
    refusals: createRefusalStore(steps),
    migrate: async () => void (await migratePostgres(db)),
    ping: async () => void (await db.pool.query(SQL.ping)),
    async close() {
      if (closed) return;
      closed = true;
      await fold.stop();
      await listener?.close();
      await admin.close();
      await db.pool.end();
    },

    ingest: (message, jobsFor) =>
      writeAndWake(async (client) => {
        const { created, duplicates, jobCount } = await ingestMessage(client, message, jobsFor, Date.now());
        return { value: { created, duplicates }, wake: jobCount > 0 };
      }),
    enqueue: (jobs) =>
      writeAndWake(async (client) => {
        await lockKeys(client, keysOf(jobs));
        const created = await enqueueJobs(client, jobs, Date.now());
        return { value: created, wake: created.length > 0 };
      }),
    enqueueReplays: async (replays, guard) =>
      replays.length === 0
        ? []
        : writeAndWake(async (client) => {
            const results = await enqueueReplays(client, replays, guard, Date.now());
            return { value: results, wake: results.some((result) => 'created' in result) };
          }),
    claim: (options) => db.transaction((client) => claimJobs(client, { ...options, now: options.now ?? Date.now() })),
    async extendLeases(jobIds, owner, leaseMs) {
      if (jobIds.length === 0) return;
      const now = Date.now();
      await db.query(PG.extendLeases, [jobIds, owner, now + leaseMs, now]);
    },
    async finish(finish) {
      if (isPlainFinal(finish)) {
        // One statement, not retried: had the connection dropped after the server committed it, a
        // retry would find the lease gone and report a lost lease for an outcome that was stored.
        const [row] = (await db.pool.query(PG.finishFinal, finishFinalParams(finish, Date.now(), { channel, payload: instanceId }))).rows as Row[];
        if (row === undefined) return false;
        if (finishWakes(finish, coalesceKeyOf(row))) notifier.notify();
        return true;
      }
      return finishInTransaction(finish);
    },
    releaseLeases: (owner) =>
      writeAndWake(async (client) => {
        const released = await releaseLeases(client, owner, Date.now());
        return { value: released, wake: released > 0 };
      }),
    pendingOfKey: (coalesceKey) => one(SQL.pendingOfKey, [coalesceKey], (row) => Number(row.id)),
    async nextDueAt(pacing) {
      const first = async (sql: string, params: unknown[] = []) => (await db.query(sql, params))[0]?.run_at;
      const times: unknown[] = [(await db.query(SQL.nextLeaseExpiry))[0]?.lease_until];
      if (pacing === undefined) times.push(await first(SQL.nextPendingDue));
      else {
        times.push(await first(SQL.nextPendingDueUnpaced));
        for (const budget of pacing.budgets) {
          const due = await first(SQL.nextPendingDueOf, [budget.key]);
          // A paced job waits for its budget's next free slot: the worker sleeps until then, claiming nothing.
          if (due == null || budget.limit === undefined) times.push(due);
          else {
            const state = await readRateState(db.pool, logKeyOf(budget), budget.limit.requests, budget.limit.windowMs);
            // The slot frees on the database's clock; the worker's timer runs on this one.
            times.push(Math.max(Number(due), state.nextFreeAt - state.at + Date.now()));
          }
        }
      }
      const known = times.filter((time) => time != null).map(Number);
      return known.length === 0 ? undefined : Math.min(...known);
    },

    getJob: (id) => one(SQL.getJob, [id], jobFromRow),
    getAttempts: async (jobId) => (await db.query(SQL.getAttempts, [jobId])).map(attemptFromRow),
    getEvent: (id) => one(SQL.getEvent, [id], eventFromRow),
    lastSucceeded: (kind, coalesceKey) => one(SQL.lastSucceeded, [kind, coalesceKey], jobFromRow),

    ...postgresReads(db, admin.read),

    rateState: (key, requests, windowMs) => readRateState(db.pool, key, requests, windowMs),
    blockRate: async (key, untilMs) => void (await db.query(SQL.blockRate, [key, untilMs])),

    onJobsAvailable: (listener) => notifier.subscribe(listener),
  };
}
