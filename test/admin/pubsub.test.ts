import request from 'supertest';
import { expect, it } from 'vitest';

import { pubsubStatusSchema } from '../../src/admin/pubsub-schemas.ts';
import { startEngineApp } from '../support/app-harness.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import type { Engine } from '../support/real-store.ts';
import { describeEachEngine, queryRows } from '../support/stored-state.ts';
import { KEY } from './support/admin-app.ts';

/*
 * GET /admin/pubsub on each engine: cursors seeded through the store's own API (an ingest with its
 * replay id, a keepalive, states), then the admin answer, checked against its schema, and the rows
 * it was read from.
 */

const cleanups = cleanupAfterEach();
const ORG = '00D8d0000001XyZEAU';
const OPPORTUNITIES = '/data/OpportunityChangeEvent';
const LEADS = '/data/LeadChangeEvent';
const REPLAY_ID = Uint8Array.from([0x00, 0x00, 0x00, 0x00, 0x00, 0x2d, 0x7a, 0x1f, 0x00, 0xff]);
const KEEPALIVE_ID = Uint8Array.from([0xff, 0x00, 0x00, 0x00, 0x00, 0x2d, 0x7a, 0x20, 0x01, 0x00]);

async function appOn(engine: Engine, env: Record<string, string> = {}) {
  const started = await startEngineApp(engine, { env: { ADMIN_API_KEYS: KEY, ADMIN_AUTH_FAILURE_LIMIT: 'off', ...env } });
  cleanups.push(started.close);
  return started;
}

const getPubSub = (app: Parameters<typeof request>[0]) => request(app).get('/admin/pubsub').set('Authorization', `Bearer ${KEY}`);

describeEachEngine('GET /admin/pubsub', (engine) => {
  it('when no subscription has a cursor and Pub/Sub is off, then it answers off with no subscriptions and nothing is stored', async () => {
    // Arrange
    const { app, url } = await appOn(engine);

    // Act
    const response = await getPubSub(app);

    // Assert
    expect(response.status).toBe(200);
    expect(pubsubStatusSchema.parse(response.body)).toEqual({ enabled: false, subscriptions: [] });
    expect(await queryRows(url, 'SELECT * FROM pubsub_cursors')).toEqual([]);
  });

  it('when events, a keepalive and states were stored, then each topic is answered with its state, replay id in hex, its age, last event, keepalive, error, resubscribes and holder', async () => {
    // Arrange: opportunities got an event (stored with its replay id) and failed once; leads only saw a keepalive.
    const { app, url, store } = await appOn(engine, {
      SALESFORCE_PUBSUB: 'on',
      SALESFORCE_CLIENT_ID: 'pubsub-client',
      SALESFORCE_CLIENT_SECRET: 'pubsub-secret',
    });
    const now = Date.now();
    const commitTimestamp = now - 90_000;
    await store.ingest(
      {
        source: 'salesforce-pubsub',
        senderId: ORG,
        rawPayload: '{}',
        events: [{ dedupeKey: `salesforce-pubsub:${Buffer.from(REPLAY_ID).toString('hex')}`, parsedPayload: { changeType: 'UPDATE' } }],
        cursor: { orgId: ORG, topic: OPPORTUNITIES, replayId: REPLAY_ID, commitTimestamp, at: now - 60_000 },
      },
      () => [],
    );
    await store.pubsub.noteState(ORG, OPPORTUNITIES, { state: 'resubscribing', error: 'service.unavailable', at: now - 30_000, holder: 'instance-a' });
    await store.pubsub.saveKeepalive(ORG, LEADS, KEEPALIVE_ID, now - 10_000);

    // Act
    const response = await getPubSub(app);

    // Assert: the answer, by topic.
    expect(response.status).toBe(200);
    const answer = pubsubStatusSchema.parse(response.body);
    expect(answer.enabled).toBe(true);
    const iso = (ms: number) => new Date(ms).toISOString();
    expect(answer.subscriptions).toEqual([
      {
        orgId: ORG,
        topic: LEADS,
        state: 'subscribed',
        replayId: 'ff000000002d7a200100',
        replayIdAgeSeconds: null,
        commitTimestamp: null,
        lastEventAt: null,
        lastKeepaliveAt: iso(now - 10_000),
        lastError: null,
        lastErrorAt: null,
        resubscribes: 0,
        holder: null,
        updatedAt: iso(now - 10_000),
      },
      {
        orgId: ORG,
        topic: OPPORTUNITIES,
        state: 'resubscribing',
        replayId: '00000000002d7a1f00ff',
        replayIdAgeSeconds: expect.any(Number) as number,
        commitTimestamp: iso(commitTimestamp),
        lastEventAt: iso(now - 60_000),
        lastKeepaliveAt: null,
        lastError: 'service.unavailable',
        lastErrorAt: iso(now - 30_000),
        resubscribes: 1,
        holder: 'instance-a',
        updatedAt: iso(now - 30_000),
      },
    ]);
    expect(answer.subscriptions[1]!.replayIdAgeSeconds).toBeGreaterThanOrEqual(90);
    expect(answer.subscriptions[1]!.replayIdAgeSeconds).toBeLessThan(120);

    // Assert: the rows it was read from, the replay ids as raw bytes, and the event stored with its cursor.
    const rows = await queryRows(url, 'SELECT org_id, topic, replay_id, commit_timestamp, state, resubscribes, holder FROM pubsub_cursors ORDER BY topic');
    expect(rows.map((row) => ({ ...row, replay_id: Buffer.from(row.replay_id as Uint8Array).toString('hex') }))).toEqual([
      { org_id: ORG, topic: LEADS, replay_id: 'ff000000002d7a200100', commit_timestamp: null, state: 'subscribed', resubscribes: 0, holder: null },
      {
        org_id: ORG,
        topic: OPPORTUNITIES,
        replay_id: '00000000002d7a1f00ff',
        commit_timestamp: commitTimestamp,
        state: 'resubscribing',
        resubscribes: 1,
        holder: 'instance-a',
      },
    ]);
    expect(await queryRows(url, 'SELECT source, sender_id, dedupe_key FROM inbound_events')).toEqual([
      { source: 'salesforce-pubsub', sender_id: ORG, dedupe_key: 'salesforce-pubsub:00000000002d7a1f00ff' },
    ]);
  });

  it('when the request has no admin key, then it is 401 and names no cursor', async () => {
    // Arrange
    const { app, store } = await appOn(engine);
    await store.pubsub.saveKeepalive(ORG, LEADS, KEEPALIVE_ID, Date.now());

    // Act
    const response = await request(app).get('/admin/pubsub');

    // Assert
    expect(response.status).toBe(401);
    expect(JSON.stringify(response.body)).not.toContain(LEADS);
  });
});
