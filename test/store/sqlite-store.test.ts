import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';

import { afterEach, describe, expect, it } from 'vitest';

import { activityQuery } from '../../src/store/activity-sql.ts';
import { migrationsFor } from '../../src/store/migrations.ts';
import { openStore } from '../../src/store/open-store.ts';
import { SQL, toSqlite } from '../../src/store/sql.ts';
import { registerStoreConformance } from './conformance.ts';
import { job, T0 } from './conformance-fixture.ts';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'store-sqlite-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('sqlite store', () => {
  registerStoreConformance({
    engine: 'sqlite',
    async createDatabase() {
      const file = path.join(tempDir(), 'bridge.db');
      return { open: () => openStore(`sqlite:${file}`), dispose: async () => undefined };
    },
  });

  describe('engine specifics', () => {
    it('when the URL names a file in a missing directory, then the directory is created and the file is in WAL mode', async () => {
      const file = path.join(tempDir(), 'nested', 'deeper', 'bridge.db');

      const store = await openStore(`sqlite:${file}`);
      await store.enqueue([job()]);
      await store.close();

      expect(existsSync(file)).toBe(true);
      const raw = new DatabaseSync(file);
      expect(raw.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
      expect(
        raw
          .prepare('SELECT version FROM schema_migrations')
          .all()
          .map((row) => row.version),
      ).toEqual(migrationsFor('sqlite').map((migration) => migration.version));
      raw.close();
    });

    it('when the URL is sqlite::memory:, then a working store opens without touching the disk', async () => {
      const store = await openStore('sqlite::memory:');
      const [created] = await store.enqueue([job()]);

      expect(store.engine).toBe('sqlite');
      expect((await store.getJob(created!.id))?.state).toBe('pending');
      await store.ping();
      await store.close();
      await expect(store.ping()).rejects.toThrow('the store is closed');
    });

    it.each([
      ['of a budget', SQL.claimPendingOf, [T0, 10, 'momentum']],
      ['of no budget', SQL.claimPendingUnpaced, [T0, 10]],
    ] as const)('when the claim query %s is planned, then it walks the pending index instead of scanning or sorting the queue', async (_name, sql, params) => {
      const file = path.join(tempDir(), 'bridge.db');
      const store = await openStore(`sqlite:${file}`);
      await store.enqueue(
        Array.from({ length: 50 }, (_, index) =>
          job({ runAt: T0 + index, coalesceKey: index % 2 ? `k${index}` : undefined, ...(index % 3 ? { rateKey: 'momentum' } : {}) }),
        ),
      );
      await store.close();

      const raw = new DatabaseSync(file);
      const plan = raw
        .prepare(`EXPLAIN QUERY PLAN ${toSqlite(sql)}`)
        .all(...params)
        .map((row) => String(row.detail));
      raw.close();

      expect(plan[0]).toMatch(/jobs_pending_due/);
      expect(plan.join('\n')).not.toMatch(/TEMP B-TREE|SCAN j\b(?! USING)/);
      expect(plan.join('\n')).toMatch(/jobs_running_key/);
    });

    it('when the activity query is planned, then it reads a range of the reception and ended-jobs indexes, never the whole tables', async () => {
      const file = path.join(tempDir(), 'bridge.db');
      const store = await openStore(`sqlite:${file}`);
      await store.close();
      const { sql, params } = activityQuery({ since: T0, until: T0 + 3_600_000, bucketMs: 60_000, kinds: ['remap', 'import'] });

      const raw = new DatabaseSync(file);
      const plan = raw
        .prepare(`EXPLAIN QUERY PLAN ${toSqlite(sql)}`)
        .all(...params)
        .map((row) => String(row.detail))
        .join('\n');
      raw.close();

      expect(plan).toMatch(/SEARCH e USING COVERING INDEX inbound_events_received \(received_at>\? AND received_at<\?\)/);
      expect(plan).toMatch(/SEARCH j USING COVERING INDEX jobs_ended \(kind=\? AND updated_at>\? AND updated_at<\?\)/);
      expect(plan).not.toMatch(/SCAN/);
    });

    it('when a claim is made while job outcomes wait for their lazy commit, then the claim and the outcomes commit at the next turn', async () => {
      const store = await openStore(`sqlite:${path.join(tempDir(), 'bridge.db')}`);
      await store.enqueue([job({ runAt: T0 }), job({ runAt: T0 + 1 })]);
      const [first] = await store.claim({ owner: 'w', limit: 1, leaseMs: 60_000, now: T0 + 10 });
      const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

      const settledCalls: string[] = [];
      const finishing = store.finish({ jobId: first!.id, leaseOwner: 'w', outcome: { state: 'succeeded' } }).then(() => settledCalls.push('finish'));
      const claiming = store.claim({ owner: 'w', limit: 1, leaseMs: 60_000, now: T0 + 10 }).then((jobs) => settledCalls.push(`claim ${jobs.length}`));
      await nextTurn();
      await nextTurn();

      // A worker whose claimed jobs ran out waits on this claim: it must not sit out the lazy window.
      expect(settledCalls.sort()).toEqual(['claim 1', 'finish']);
      await Promise.all([finishing, claiming]);
      await store.close();
    });

    it('when the URL is not a known engine, then opening fails with a precise error', async () => {
      await expect(openStore('mysql://localhost/db')).rejects.toMatchObject({ code: 'invalid_database_url' });
    });
  });
});
