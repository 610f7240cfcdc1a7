import { randomBytes } from 'node:crypto';

import pg from 'pg';
import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { createApp } from '../../src/app.ts';
import { type RunningBridge, startBridge } from '../../src/bridge.ts';
import { bridgeReadiness } from '../../src/http/readiness-checks.ts';
import { createJobRegistry } from '../../src/jobs/registry.ts';
import { createWorker, type Worker } from '../../src/jobs/worker.ts';
import { parseConfig } from '../../src/settings.ts';
import type { Store } from '../../src/store/types.ts';
import { eventNotification, notificationId, outboundMessage } from '../salesforce/support/outbound-message-builder.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { captureLogs } from '../support/log-capture.ts';
import { asPostgresAdmin, type Engine, openRealStore } from '../support/real-store.ts';
import { describeEachEngine, expectSettled, queryRows, waitSettled } from '../support/stored-state.ts';
import { sampleValue } from './support/prom-text.ts';

const cleanups = cleanupAfterEach();

/** A real store whose ping rejects while `down()` says so (the database unreachable). */
async function storeWithOutage(engine: Engine, down: () => boolean): Promise<Store> {
  const { store, close } = await openRealStore(engine, 'readyz');
  cleanups.push(close);
  return { ...store, ping: () => (down() ? Promise.reject(new Error('the database is unreachable')) : store.ping()) };
}

function startedWorker(store: Store): Worker {
  const logger = captureLogs().logger;
  const worker = createWorker({ store, registry: createJobRegistry(), logger, concurrency: 1, retrySchedule: [0], leaseMs: 30_000 });
  worker.start();
  cleanups.push(() => worker.stop(1000));
  return worker;
}

function appFor(store: Store, worker: Worker) {
  const logs = captureLogs();
  return { app: createApp({ config: parseConfig({ NODE_ENV: 'test' }), logger: logs.logger, readiness: bridgeReadiness(store, worker) }), logs };
}

describeEachEngine('GET /readyz with its store and worker checks', (engine) => {
  it('when the store stops answering, then 503 naming the store, and 200 again once it answers, without a restart', async () => {
    let down = false;
    const store = await storeWithOutage(engine, () => down);
    const { app, logs } = appFor(store, startedWorker(store));

    const before = await request(app).get('/readyz');
    down = true;
    const during = await request(app).get('/readyz');
    down = false;
    const after = await request(app).get('/readyz');

    expect(before.status).toBe(200);
    expect(during.status).toBe(503);
    expect(during.body).toEqual({
      status: 'not ready',
      checks: [
        { name: 'store', ok: false },
        { name: 'worker', ok: true },
      ],
    });
    expect(logs.lines().find((line) => line.message === 'readiness check failed')).toMatchObject({ check: 'store' });
    expect(after.status).toBe(200);
    expect(after.body).toEqual({
      status: 'ready',
      checks: [
        { name: 'store', ok: true },
        { name: 'worker', ok: true },
      ],
    });
  });

  it('when the worker is stopped, then 503 naming the worker while liveness still answers 200', async () => {
    const store = await storeWithOutage(engine, () => false);
    const worker = startedWorker(store);
    const { app } = appFor(store, worker);

    await worker.stop(1000);
    const ready = await request(app).get('/readyz');
    const live = await request(app).get('/healthz');

    expect(ready.status).toBe(503);
    expect(ready.body.checks).toEqual([
      { name: 'store', ok: true },
      { name: 'worker', ok: false },
    ]);
    expect(live.status).toBe(200);
  });
});

const url = process.env.TEST_DATABASE_URL;

const admin = (sql: string): Promise<pg.QueryResultRow[]> => asPostgresAdmin(async (client) => (await client.query(sql)).rows);

/*
 * PostgreSQL only by nature: the outage is the server refusing the bridge's role (connections
 * terminated, new logins refused), which a SQLite file has no counterpart of; SQLite's own outage,
 * a full disk, is in test/bridge/disk-full-through-bridge.test.ts.
 */
describe.skipIf(!url)(`GET /readyz through startBridge when PostgreSQL refuses the bridge's role${url ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`, () => {
  it("when the bridge's connections are terminated and new ones refused, then /readyz and inbound fail (never a false ack), and both recover by themselves", async () => {
    // The bridge logs in as its own role, so the outage (NOLOGIN + terminate) touches no other test.
    const role = `readyz_${randomBytes(4).toString('hex')}`;
    await admin(`CREATE ROLE ${role} LOGIN`);
    await admin(`CREATE SCHEMA ${role} AUTHORIZATION ${role}`);
    await admin(`ALTER ROLE ${role} SET search_path = ${role}`);
    cleanups.push(async () => {
      await admin(`DROP SCHEMA IF EXISTS ${role} CASCADE`);
      await admin(`DROP ROLE IF EXISTS ${role}`);
    });
    const target = new URL(url!);
    target.username = role;
    target.password = '';
    const config = parseConfig({
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: '0',
      DATABASE_URL: target.toString(),
      DATABASE_POOL_MAX: '2',
      SALESFORCE_ORG_IDS: '00D8d0000001XyZ',
      SHUTDOWN_TIMEOUT_MS: '1000',
    });
    const bridge: RunningBridge = await startBridge(config, captureLogs({ level: 'error' }).logger);
    cleanups.push(() => bridge.stop());
    const get = (route: string) => fetch(`${bridge.url}${route}`);
    const post = (n: number) =>
      fetch(`${bridge.url}/salesforce/outbound-message`, {
        method: 'POST',
        headers: { 'content-type': 'text/xml; charset=utf-8' },
        body: outboundMessage({ notifications: [eventNotification(n)] }),
      });

    const before = await get('/readyz');
    await admin(`ALTER ROLE ${role} NOLOGIN`);
    await admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '${role}'`);
    const during = await get('/readyz');
    const inboundDuring = await post(1);
    const metricsDuring = await (await get('/metrics')).text();
    await admin(`ALTER ROLE ${role} LOGIN`);
    const after = await get('/readyz');
    const inboundAfter = await post(2);

    expect(before.status).toBe(200);
    expect(during.status).toBe(503);
    expect(((await during.json()) as { checks: unknown }).checks).toEqual([
      { name: 'store', ok: false },
      { name: 'worker', ok: true },
    ]);
    expect(inboundDuring.status).toBe(500);
    expect(await inboundDuring.text()).not.toContain('<Ack>');
    expect(sampleValue(metricsDuring, 'bridge_store_up')).toBe(0);
    expect(after.status).toBe(200);
    expect(inboundAfter.status).toBe(200);
    expect(await inboundAfter.text()).toContain('<Ack>true</Ack>');
    // Only the message acked after recovery was stored.
    expect(await admin(`SELECT dedupe_key FROM ${role}.inbound_events`)).toEqual([{ dedupe_key: `salesforce:${notificationId(2)}` }]);
    // Its mapping ran after the outage like any other: nothing dead, retried or left pending.
    await waitSettled(config.DATABASE_URL);
    await expectSettled(config.DATABASE_URL);
    expect(await queryRows(config.DATABASE_URL, 'SELECT kind FROM jobs')).toEqual([{ kind: 'map-event' }]);
  });
});
