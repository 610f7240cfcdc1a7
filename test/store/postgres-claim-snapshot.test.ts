import { randomBytes } from 'node:crypto';

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import winston from 'winston';

import { claimJobs, enqueueJobs, lockKeys } from '../../src/store/postgres/jobs.ts';
import { connectionConfig } from '../../src/store/postgres/pool.ts';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import type { ClaimPacing, Store } from '../../src/store/types.ts';
import { asPostgresAdmin } from '../support/real-store.ts';
import { job, T0 } from './conformance-fixture.ts';

const url = process.env.TEST_DATABASE_URL;
const schema = `claim_snapshot_${randomBytes(4).toString('hex')}`;
const logger = winston.createLogger({ silent: true });
/** Remaps unpaced (MOMENTUM_RATE_LIMIT=off): claimable ahead of free slots. */
const unpacedRemaps: ClaimPacing = { budgets: [{ key: 'momentum', limit: undefined }], max: 0 };

describe.skipIf(!url)('a PostgreSQL claim reads its candidates from one snapshot', () => {
  let store: Store;
  const clients: pg.Client[] = [];
  const connect = async () => {
    const client = new pg.Client(connectionConfig({ url: url!, schema, poolMax: 1, logger }));
    await client.connect();
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    store = await openPostgresStore(url!, { schema, poolMax: 2, logger });
  });
  afterAll(async () => {
    for (const client of clients) await client.end();
    await store.close();
    await asPostgresAdmin((client) => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
  });

  it('when a mapping commits its remap while a claim is reading, then the claim never takes that remap ahead of the newer mapping of the same record', async () => {
    // Arrange: the older mapping runs; the newer one waits for it (same serial key).
    const [older, newer] = await store.enqueue([
      job({ kind: 'map-event', serialKey: 'salesforce:00U1', runAt: T0 }),
      job({ kind: 'map-event', serialKey: 'salesforce:00U1', runAt: T0 + 1 }),
    ]);
    const [running] = await store.claim({ owner: 'worker', limit: 1, leaseMs: 60_000, now: T0 + 10 });
    expect(running?.id).toBe(older?.id);
    // The older mapping's outcome, written but not committed yet: it succeeded and enqueued its remap.
    const mapping = await connect();
    await mapping.query('BEGIN');
    await mapping.query(`UPDATE jobs SET state = 'succeeded' WHERE id = $1`, [older?.id]);
    await lockKeys(mapping, ['meeting:00U1']);
    const [remap] = await enqueueJobs(mapping, [job({ coalesceKey: 'meeting:00U1', rateKey: 'momentum', runAt: T0 + 20 })], T0 + 20);
    // The claim's connection commits the mapping as soon as it has read its first candidates.
    const claiming = await connect();
    const query = claiming.query.bind(claiming) as (sql: string, params?: unknown[]) => Promise<pg.QueryResult>;
    let committed = false;
    Object.assign(claiming, {
      query: async (sql: string, params?: unknown[]) => {
        const result = await query(sql, params);
        if (!committed && sql.includes('SKIP LOCKED')) {
          committed = true;
          await mapping.query('COMMIT');
        }
        return result;
      },
    });

    // Act: a claim ahead while the worker's slot is busy, then the next one.
    await claiming.query('BEGIN');
    const during = await claimJobs(claiming, { owner: 'worker', limit: 1, leaseMs: 60_000, now: T0 + 30, pacing: unpacedRemaps });
    await claiming.query('COMMIT');
    const after = await store.claim({ owner: 'worker', limit: 1, leaseMs: 60_000, now: T0 + 30, pacing: unpacedRemaps });

    // Assert: the claim saw the store before the commit (nothing claimable) or after it (the newer
    // mapping first, by run time), never the remap alone.
    expect(committed).toBe(true);
    expect(during.map((claimed) => claimed.id)).toEqual([]);
    expect(after.map((claimed) => claimed.id)).toEqual([newer?.id]);
    const { rows } = await claiming.query(`SELECT id, state FROM jobs WHERE id = $1`, [remap?.id]);
    expect(rows).toEqual([{ id: remap?.id, state: 'pending' }]);
  });
});
