import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { pubsubStatusSchema } from '../../../src/admin/pubsub-schemas.ts';
import { TEST_CERT_FILE } from '../../fakes/trust-test-ca.ts';
import { cleanupAfterEach } from '../../support/cleanups.ts';
import { TEST_DATABASE_URL } from '../../support/real-store.ts';
import { type RunningBridgeProcess, spawnBridge } from '../../support/spawn-bridge.ts';
import { expectSettled, waitSettled } from '../../support/stored-state.ts';
import { waitFor } from '../../support/wait-for.ts';
import { EVENTS, OPPORTUNITIES, startCdcWorld, storedCdcEvents } from './support/cdc-world.ts';

/*
 * Two bridges as real processes (`node src/server.ts`) on one PostgreSQL, both subscribing to the
 * same org's Change Data Capture. The one streaming is SIGKILLed: it releases nothing, so the other
 * takes the channel over only once the dead holder's lease runs out, and resumes after the replay
 * id stored with the last batch — within 30 s, nothing lost and nothing sent twice
 * (docs/operations.md, "Salesforce Pub/Sub").
 */

const cleanups = cleanupAfterEach();
const ADMIN_KEY = 'failover-admin-key-0123456789';
const DEAL = '0068d0000101XyZAAU';
const eventId = (n: number) => `00U8d0000${String(970 + n).padStart(3, '0')}XyZEAU`;
const created = (n: number) => ({
  header: { entityName: 'Event', recordIds: [eventId(n)], changeType: 'CREATE' as const },
  fields: { WhatId: DEAL, Subject: `Call ${n}`, StartDateTime: BigInt(Date.parse(`2026-03-0${n}T16:00:00.000Z`)) },
});
const titles = (requests: Array<{ body: unknown }>) =>
  requests.map((request) => (request.body as { meetingDetails?: { title?: string } }).meetingDetails?.title);

/** GET /admin/pubsub of a child: each topic's cursor. */
async function cursors(bridge: RunningBridgeProcess) {
  const reply = await fetch(`${bridge.url}/admin/pubsub`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  expect(reply.status).toBe(200);
  return new Map(pubsubStatusSchema.parse(await reply.json()).subscriptions.map((cursor) => [cursor.topic, cursor]));
}

/** The process id of each topic's holder (a holder is `host:pid:random`). */
async function holderPids(bridge: RunningBridgeProcess): Promise<Record<string, number | undefined>> {
  return Object.fromEntries(
    [...(await cursors(bridge))].map(([topic, cursor]) => [topic, cursor.holder === null ? undefined : Number(cursor.holder.split(':')[1])]),
  );
}

describe.skipIf(TEST_DATABASE_URL === undefined)('Salesforce Change Data Capture failover between two bridge processes on PostgreSQL', () => {
  it('when the process streaming a channel is SIGKILLed, then the other resumes after the stored replay id within 30 s: every change reaches Momentum exactly once and the cursor holds the last id', async () => {
    // Arrange: two children, the first holding both channels before the second starts.
    const world = await startCdcWorld('postgres', cleanups);
    const env = {
      ...world.env,
      // grpc-js trusts only this file when it is set; the bridge adds the file NODE_EXTRA_CA_CERTS names.
      ...(process.env.GRPC_DEFAULT_SSL_ROOTS_FILE_PATH ? { GRPC_DEFAULT_SSL_ROOTS_FILE_PATH: process.env.GRPC_DEFAULT_SSL_ROOTS_FILE_PATH } : {}),
      NODE_EXTRA_CA_CERTS: fileURLToPath(TEST_CERT_FILE),
      ADMIN_API_KEYS: ADMIN_KEY,
      MOMENTUM_READBACK: 'off',
    };
    const first = await spawnBridge({ env });
    cleanups.push(async () => void (await first.kill()));
    await waitFor('the first process to hold both channels', async () => {
      const holders = await holderPids(first);
      return holders[EVENTS] === first.child.pid && holders[OPPORTUNITIES] === first.child.pid;
    });
    const second = await spawnBridge({ env });
    cleanups.push(async () => void (await second.kill()));
    await second.waitForLog((line) => line.message === 'Salesforce Pub/Sub subscribing');
    const one = world.pubsub.publish(EVENTS, created(1));
    await world.momentum.waitFor(1, 15_000);
    await waitFor('the first change stored with its replay id', async () => (await cursors(first)).get(EVENTS)?.replayId === one.replayId.toString('hex'));
    await waitSettled(world.database.url);
    const streamsBefore = new Set(world.pubsub.fetchRequests.map((request) => request.streamId));
    expect((await holderPids(second))[EVENTS]).toBe(first.child.pid);

    // Act: the holder dies without a word; changes keep coming.
    first.child.kill('SIGKILL');
    const killedAt = Date.now();
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    const later = [2, 3, 4].map((n) => world.pubsub.publish(EVENTS, created(n)));
    let resumedAt = 0;
    await waitFor(
      'the second process to open a stream on the events channel',
      () => {
        const resumed = world.pubsub.fetchRequests.some((request) => request.topic === EVENTS && !streamsBefore.has(request.streamId));
        if (resumed && resumedAt === 0) resumedAt = Date.now();
        return resumed;
      },
      30_000,
      { intervalMs: 25 },
    );
    await world.momentum.waitFor(4, 30_000);
    const deliveredAt = Date.now();

    // Assert: resumed in time, after the stored id, by the survivor.
    expect(resumedAt - killedAt, 'ms from the SIGKILL to the resumed stream').toBeLessThan(30_000);
    expect(deliveredAt - killedAt, 'ms from the SIGKILL to the last change in Momentum').toBeLessThan(30_000);
    const resumed = world.pubsub.fetchRequests.find((request) => request.topic === EVENTS && !streamsBefore.has(request.streamId));
    expect(resumed).toMatchObject({ preset: 'CUSTOM', replayId: one.replayId.toString('hex') });
    const last = later.at(-1)!.replayId.toString('hex');
    await waitFor('the survivor to store the last replay id', async () => (await cursors(second)).get(EVENTS)?.replayId === last);
    expect((await holderPids(second))[EVENTS]).toBe(second.child.pid);
    await waitSettled(world.database.url);
    // Exactly once: each change one remap, one stored notification.
    expect(titles(world.momentum.requests).sort()).toEqual(['Call 1', 'Call 2', 'Call 3', 'Call 4']);
    const stored = await storedCdcEvents({ databaseUrl: world.database.url });
    expect(stored.map((event) => event.dedupeKey.split(':').at(-1))).toEqual([1, 2, 3, 4].map((n) => eventId(n).slice(0, 15)));
    await expectSettled(world.database.url);
    expect(second.child.exitCode).toBeNull();
  }, 90_000);
});
