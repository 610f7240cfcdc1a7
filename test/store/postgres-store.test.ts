import { randomBytes } from 'node:crypto';

import { afterAll, afterEach, describe, expect, it } from 'vitest';
import winston from 'winston';

import { openStore } from '../../src/store/open-store.ts';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { SQL } from '../../src/store/sql.ts';
import type { Job, Store } from '../../src/store/types.ts';
import { asPostgresAdmin } from '../support/real-store.ts';
import { waitFor } from '../support/wait-for.ts';
import { registerStoreConformance } from './conformance.ts';
import { job, T0 } from './conformance-fixture.ts';

const url = process.env.TEST_DATABASE_URL;
const silent = winston.createLogger({ silent: true });
// One prefix per test file run; every test gets its own schema under it, dropped afterwards.
const prefix = `store_test_${randomBytes(4).toString('hex')}`;
let schemas = 0;
const newSchema = () => `${prefix}_${++schemas}`;

const admin = asPostgresAdmin;
const dropSchema = (schema: string) => admin((client) => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));

/** How long a wake-up, a reconnect or a backend exit may take before the test fails. */
const WAIT_MS = 10_000;

describe.skipIf(!url)(`postgres store${url ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`, () => {
  registerStoreConformance({
    engine: 'postgres',
    async createDatabase() {
      const schema = newSchema();
      return { open: () => openStore(url!, { schema, poolMax: 4 }), dispose: () => dropSchema(schema).then(() => undefined) };
    },
  });

  describe('several instances on one database', () => {
    const stores: Store[] = [];
    const schema = newSchema();
    const open = async (options: { onListening?: (reconnected: boolean) => void } = {}) => {
      const store = await openPostgresStore(url!, { schema, poolMax: 4, logger: silent, ...options });
      stores.push(store);
      return store;
    };
    afterEach(async () => {
      for (const store of stores.splice(0)) await store.close();
      await dropSchema(schema);
    });

    it('when two instances claim concurrently, then no job is handed out twice and every job is handed out', async () => {
      const [a, b] = [await open(), await open()];
      const created = await a.enqueue(Array.from({ length: 300 }, (_, index) => job({ coalesceKey: index % 3 === 0 ? `key-${index}` : undefined })));
      const drain = async (store: Store, owner: string) => {
        const seen: Job[] = [];
        for (
          let batch = await store.claim({ owner, limit: 7, leaseMs: 60_000, now: T0 + 1 });
          batch.length > 0;
          batch = await store.claim({ owner, limit: 7, leaseMs: 60_000, now: T0 + 1 })
        ) {
          seen.push(...batch);
          await Promise.all(batch.map((claimed) => store.finish({ jobId: claimed.id, leaseOwner: owner, outcome: { state: 'succeeded' } })));
        }
        return seen;
      };

      const [byA, byB] = await Promise.all([drain(a, 'a'), drain(b, 'b')]);

      const ids = [...byA, ...byB].map((claimed) => claimed.id);
      expect(ids).toHaveLength(300);
      expect(new Set(ids)).toEqual(new Set(created.map((made) => made.id)));
      expect(byA.length).toBeGreaterThan(0);
      expect(byB.length).toBeGreaterThan(0);
    });

    it('when one instance enqueues, then the other is woken through NOTIFY', async () => {
      const [a, b] = [await open(), await open()];
      let wakes = 0;
      a.onJobsAvailable(() => (wakes += 1));

      await b.enqueue([job()]);

      await waitFor('a wake-up on the other instance', () => wakes > 0, WAIT_MS);
      expect(wakes).toBeGreaterThan(0);
    });

    it("when a job of a key succeeds on one instance (the one-statement outcome), then the other is woken and may run the key's next job", async () => {
      const [a, b] = [await open(), await open()];
      const [first] = await b.enqueue([job({ coalesceKey: 'meeting-pg-1' })]);
      await b.claim({ owner: 'b-worker', limit: 1, leaseMs: 60_000 });
      const [next] = await b.enqueue([job({ coalesceKey: 'meeting-pg-1' })]);
      let wakes = 0;
      a.onJobsAvailable(() => (wakes += 1));
      const whileRunning = await a.claim({ owner: 'a-worker', limit: 5, leaseMs: 60_000 });
      // The enqueues' own notifications arrive within milliseconds on loopback: count only the finish's.
      await new Promise((resolve) => setTimeout(resolve, 300));
      wakes = 0;

      const finished = await b.finish({
        jobId: first!.id,
        leaseOwner: 'b-worker',
        outcome: { state: 'succeeded' },
        attempt: { startedAt: T0, durationMs: 7, status: 200, upstreamRequestId: 'req-pg-1' },
      });

      await waitFor('a wake-up on the other instance', () => wakes > 0, WAIT_MS);
      expect(finished).toBe(true);
      expect(whileRunning).toEqual([]);
      expect((await a.claim({ owner: 'a-worker', limit: 5, leaseMs: 60_000 })).map((claimed) => claimed.id)).toEqual([next!.id]);
      expect(await a.getJob(first!.id)).toMatchObject({ state: 'succeeded', attempts: 1, leaseOwner: null });
      expect(await a.getAttempts(first!.id)).toEqual([expect.objectContaining({ status: 200, durationMs: 7, upstreamRequestId: 'req-pg-1' })]);
      expect(await b.finish({ jobId: first!.id, leaseOwner: 'b-worker', outcome: { state: 'succeeded' } })).toBe(false);
    });

    it('when the listener connection is terminated, then it reconnects on its own and wake-ups resume', async () => {
      let reconnects = 0;
      const a = await open({ onListening: (reconnected) => (reconnects += reconnected ? 1 : 0) });
      const b = await open();
      const killed = await admin(
        async (client) =>
          (await client.query('SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE query = $1', [`LISTEN "bridge_jobs_${schema}"`])).rows,
      );
      await waitFor('the listener to reconnect', () => reconnects > 0, WAIT_MS);
      let wakes = 0;
      a.onJobsAvailable(() => (wakes += 1));

      await b.enqueue([job()]);

      await waitFor('a wake-up after the reconnect', () => wakes > 0, WAIT_MS);
      expect(killed.length).toBeGreaterThanOrEqual(2);
    });

    it('when every pooled connection is terminated, then the next calls succeed on new connections', async () => {
      const store = await open();
      await Promise.all([store.ping(), store.enqueue([job()]), store.nextDueAt()]);
      const appName = `crm-sync-bridge:${schema}`;
      const pids = await admin(async (client) =>
        (await client.query('SELECT pg_terminate_backend(pid), pid FROM pg_stat_activity WHERE application_name = $1', [appName])).rows.map((row) => row.pid),
      );
      await admin((client) =>
        waitFor('the backends to exit', async () => (await client.query('SELECT 1 FROM pg_stat_activity WHERE pid = ANY($1)', [pids])).rowCount === 0, WAIT_MS),
      );

      const [created] = await store.enqueue([job()]);
      await store.ping();

      expect(pids.length).toBeGreaterThan(0);
      expect((await store.getJob(created!.id))?.state).toBe('pending');
    });

    it('when the queue is deep, then the claim query walks the pending index', async () => {
      const store = await open();
      await store.enqueue([job()]);
      const plan = await admin(async (client) => {
        await client.query(`SET search_path = "${schema}"`);
        await client.query(`INSERT INTO jobs (kind, payload, state, run_at, created_at, updated_at, rate_key)
          SELECT 'remap', '{}', 'pending', ${T0} + n, ${T0}, ${T0}, 'momentum' FROM generate_series(1, 100000) AS n`);
        await client.query('ANALYZE jobs');
        const sql = SQL.claimPendingOf
          .replace(/\$1/g, String(T0 + 200_000))
          .replace(/\$2/g, '10')
          .replace(/\$3/g, "'momentum'");
        return (await client.query(`EXPLAIN ${sql}`)).rows.map((row) => String(row['QUERY PLAN'])).join('\n');
      });

      expect(plan).toMatch(/Index Scan using jobs_pending_due/);
      expect(plan).not.toMatch(/Seq Scan|Sort/);
    });
  });

  afterAll(async () => {
    // Belt and braces: nothing of this file's schemas survives, even after a failed test.
    await admin(async (client) => {
      const { rows } = await client.query('SELECT nspname FROM pg_namespace WHERE nspname LIKE $1', [`${prefix}%`]);
      for (const row of rows) await client.query(`DROP SCHEMA IF EXISTS "${row.nspname}" CASCADE`);
    });
  });
});
