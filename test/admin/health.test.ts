import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { describe, expect, it } from 'vitest';

import { PACKAGE_VERSION } from '../../src/core/package-version.ts';
import { type FakeMomentum, replies, startFakeMomentum } from '../fakes/fake-momentum.ts';
import { eventNotification, ORG_ID, outboundMessage } from '../salesforce/support/outbound-message-builder.ts';
import { postOutboundMessage } from '../salesforce/support/post-outbound-message.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { ENGINES, testDatabase } from '../support/real-store.ts';
import { waitFor } from '../support/wait-for.ts';
import { getHealth, integration, postRemap, startHealthBridge } from './support/health-bridge.ts';

const cleanups = cleanupAfterEach();

async function arrange(engine: (typeof ENGINES)[number]['engine'], options: { momentum?: boolean; env?: Record<string, string> } = {}) {
  const database = testDatabase(engine, 'health');
  cleanups.push(database.drop);
  let momentum: FakeMomentum | undefined;
  if (options.momentum !== false) {
    momentum = await startFakeMomentum();
    cleanups.push(() => momentum!.close());
  }
  const bridge = await startHealthBridge({ database, ...(momentum ? { momentum } : {}), ...(options.env ? { env: options.env } : {}) });
  cleanups.push(bridge.stop);
  return { database, momentum, bridge };
}

describe.each(ENGINES)('GET /admin/health $title', ({ engine, skip }) => {
  it.skipIf(skip)(
    'when only Momentum is set, then it is ready and names its version, engine and this instance, and every other integration is off with the settings that turn it on',
    async () => {
      // Arrange
      const { bridge } = await arrange(engine);

      // Act
      const health = await getHealth(bridge.url);

      // Assert: the answer.
      expect(health.ready).toBe(true);
      expect(health.checks).toEqual([
        { name: 'store', ok: true },
        { name: 'worker', ok: true },
      ]);
      expect(health.version).toBe(PACKAGE_VERSION);
      expect(health.engine).toBe(engine);
      expect(health.uptimeSeconds).toBeGreaterThanOrEqual(0);
      expect(health.instances.map((entry) => ({ id: entry.id, self: entry.self, pid: entry.pid }))).toEqual([
        { id: health.instance, self: true, pid: process.pid },
      ]);
      expect(health.integrations.map((entry) => [entry.name, entry.state])).toEqual([
        ['salesforce-outbound', 'off'],
        ['salesforce-lookups', 'off'],
        ['salesforce-pubsub', 'off'],
        ['google', 'off'],
        ['microsoft', 'off'],
        ['zoom', 'off'],
        ['signed-events', 'off'],
        ['momentum', 'on'],
      ]);
      expect(integration(health, 'salesforce-outbound').enableWith).toBe('SALESFORCE_ORG_IDS');
      expect(integration(health, 'signed-events').enableWith).toBe('CALENDAR_WEBHOOK_SECRETS');
      expect(integration(health, 'salesforce-pubsub').enableWith).toBe('SALESFORCE_PUBSUB=on with the Salesforce lookup credentials');
      expect(integration(health, 'momentum').enableWith).toBeUndefined();
      expect(health.momentum).toEqual({ mode: 'real', budget: 'momentum' });
      // Assert: the stored heartbeat. PostgreSQL holds this instance's row; SQLite serves one process and writes none.
      const seen = await (await bridge.store()).instances.seenSince(0);
      expect(seen.map((entry) => entry.id)).toEqual(engine === 'postgres' ? [health.instance] : []);
    },
  );

  it.skipIf(skip)(
    'when SALESFORCE_PUBSUB is on with the lookup credentials and Salesforce cannot sign in, then Pub/Sub is listed on, failing with why, and no cursor is stored',
    async () => {
      // Arrange: the lookups' login host refuses connections, so the subscriber cannot sign in.
      const { bridge } = await arrange(engine, {
        env: {
          SALESFORCE_PUBSUB: 'on',
          SALESFORCE_CLIENT_ID: 'pubsub-client',
          SALESFORCE_CLIENT_SECRET: 'pubsub-secret',
          SALESFORCE_LOGIN_URL: 'http://127.0.0.1:1',
        },
      });

      // Act
      let health = await getHealth(bridge.url);
      await waitFor('Pub/Sub to report its failed sign-in', async () => {
        health = await getHealth(bridge.url);
        return integration(health, 'salesforce-pubsub').state === 'failing';
      });

      // Assert: listed right after the lookups, failing with the sign-in's error.
      expect(health.integrations.map((entry) => entry.name).slice(0, 3)).toEqual(['salesforce-outbound', 'salesforce-lookups', 'salesforce-pubsub']);
      expect(integration(health, 'salesforce-pubsub')).toMatchObject({
        state: 'failing',
        lastError: expect.stringMatching(/^Salesforce sign-in failed: /),
      });
      expect(integration(health, 'salesforce-pubsub').detail).toBeUndefined();
      expect(await (await bridge.store()).pubsub.list()).toEqual([]);
    },
  );

  it.skipIf(skip)('when MOMENTUM_API_KEY is not set, then Momentum is the sandbox, said in its mode, its detail and its own budget', async () => {
    // Arrange
    const { bridge } = await arrange(engine, { momentum: false });

    // Act
    const health = await getHealth(bridge.url);

    // Assert
    expect(health.momentum).toEqual({ mode: 'sandbox', budget: 'momentum:sandbox' });
    expect(integration(health, 'momentum').state).toBe('on');
    expect(integration(health, 'momentum').detail).toMatch(/^SANDBOX: MOMENTUM_API_KEY is not set/);
  });

  it.skipIf(skip)(
    'when Momentum answers 401, then Momentum is failing with the status, error class and error, the dead delivery is named, and the next accepted call makes it on again',
    async () => {
      // Arrange
      const { bridge, momentum } = await arrange(engine);
      momentum!.queue(replies.status(401, { message: 'invalid api key' }));

      // Act: a remap Momentum refuses (401 is final: dead at once).
      const deadId = await postRemap(bridge.url, 'health-401');
      const store = await bridge.store();
      await waitFor('the remap to end dead', async () => (await store.getJob(deadId))?.state === 'dead');
      const failing = await getHealth(bridge.url);

      // Assert: the answer, and what is stored.
      expect(integration(failing, 'momentum')).toMatchObject({ state: 'failing', lastError: 'HTTP 401: invalid api key' });
      expect(integration(failing, 'momentum').lastOkAt).toBeUndefined();
      expect(failing.momentum.lastAnswer).toMatchObject({ ok: false, status: 401, errorClass: 'http_4xx' });
      expect(failing.momentum.lastDead).toMatchObject({ deliveryId: deadId });
      expect((await store.getJob(deadId))?.lastError).toContain('HTTP 401');
      expect(momentum!.requests).toHaveLength(1);

      // Act: the next remap is accepted.
      const okId = await postRemap(bridge.url, 'health-ok');
      await waitFor('the remap to succeed', async () => (await store.getJob(okId))?.state === 'succeeded');
      const recovered = await getHealth(bridge.url);

      // Assert: on again; the failure is still on record.
      expect(integration(recovered, 'momentum').state).toBe('on');
      expect(integration(recovered, 'momentum').lastErrorAt).toBe(integration(failing, 'momentum').lastErrorAt);
      expect(recovered.momentum.lastAnswer).toMatchObject({ ok: true, status: 200 });
    },
  );

  it.skipIf(skip)(
    'when a Salesforce lookup fails, then lookups are failing with its error while Outbound Messages are on with the acknowledged message',
    async () => {
      // Arrange: lookups on, but the login host refuses the sign-in, echoing the request it got
      // (client secret included) in its error, as a misbehaving proxy or server might.
      const login = createServer((request, response) => {
        let body = '';
        request.on('data', (chunk: Buffer) => (body += chunk.toString()));
        request.on('end', () => {
          response.writeHead(400, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ error: 'invalid_client', error_description: `refused: ${body}` }));
        });
      });
      await new Promise<void>((resolve) => login.listen(0, '127.0.0.1', resolve));
      cleanups.push(() => new Promise<void>((resolve) => login.close(() => resolve())));
      const { port } = login.address() as AddressInfo;
      const { bridge } = await arrange(engine, {
        env: {
          SALESFORCE_ORG_IDS: ORG_ID,
          SALESFORCE_CLIENT_ID: 'health-client',
          SALESFORCE_CLIENT_SECRET: 'health-secret',
          SALESFORCE_LOGIN_URL: `http://127.0.0.1:${port}`,
        },
      });

      // Act: an Event whose owner must be looked up.
      const ack = await postOutboundMessage(
        bridge.url,
        outboundMessage({ notifications: [eventNotification(1, { OwnerId: '0058d0000101XyZAAU', WhatId: '0068d0000101XyZAAU' })] }),
      );
      expect(ack.status).toBe(200);
      let health = await getHealth(bridge.url);
      await waitFor(
        'lookups to be failing',
        async () => integration((health = await getHealth(bridge.url)), 'salesforce-lookups').state === 'failing',
        15_000,
        {
          lastSeen: () => bridge.logs.text().slice(-2000),
        },
      );

      // Assert: the answer, and the event stored by the acknowledged message.
      expect(integration(health, 'salesforce-outbound').state).toBe('on');
      expect(integration(health, 'salesforce-outbound').lastOkAt).toBeDefined();
      expect(integration(health, 'salesforce-outbound').enableWith).toBeUndefined();
      expect(integration(health, 'salesforce-lookups').lastError).toMatch(/.+/);
      expect(integration(health, 'salesforce-lookups').lastErrorAt).toBeDefined();
      expect(integration(health, 'salesforce-lookups').lastError).not.toContain('health-secret');
      expect(integration(health, 'salesforce-lookups').lastError).toContain('[redacted]');
      const store = await bridge.store();
      expect(await store.listEvents({ limit: 10 })).toHaveLength(1);
      // The mapping job keeps the error to retry on, with the secret taken out too.
      const erred = async () => (await store.listJobs({ kinds: ['map-event'], limit: 5 })).flatMap((job) => (job.lastError === null ? [] : [job.lastError]));
      await waitFor('the mapping job to store its error', async () => (await erred()).length > 0);
      expect((await erred()).join('\n')).not.toContain('health-secret');
    },
  );
});

describe('GET /admin/health with two bridges on one PostgreSQL', () => {
  const skip = ENGINES.find((entry) => entry.engine === 'postgres')?.skip ?? true;

  it.skipIf(skip)('when two bridges run, then each lists both instances, itself marked; when one stops, then its row is gone at once', async () => {
    // Arrange
    const database = testDatabase('postgres', 'health-two');
    cleanups.push(database.drop);
    const momentum = await startFakeMomentum();
    cleanups.push(() => momentum.close());
    const first = await startHealthBridge({ database, momentum });
    cleanups.push(first.stop);
    const second = await startHealthBridge({ database, momentum });
    cleanups.push(second.stop);

    // Act
    const [fromFirst, fromSecond] = await Promise.all([getHealth(first.url), getHealth(second.url)]);

    // Assert: both instances in each answer, each marking itself.
    const ids = [fromFirst.instance, fromSecond.instance];
    expect(new Set(ids).size).toBe(2);
    expect(fromFirst.instances.map((entry) => entry.id).sort()).toEqual([...ids].sort());
    expect(fromSecond.instances.map((entry) => entry.id).sort()).toEqual([...ids].sort());
    expect(fromFirst.instances.filter((entry) => entry.self).map((entry) => entry.id)).toEqual([fromFirst.instance]);
    expect(fromSecond.instances.filter((entry) => entry.self).map((entry) => entry.id)).toEqual([fromSecond.instance]);

    // Act: the second stops gracefully.
    const store = await first.store();
    await second.stop();
    const after = await getHealth(first.url);

    // Assert: the answer and the stored rows name the first alone.
    expect(after.instances.map((entry) => entry.id)).toEqual([fromFirst.instance]);
    expect((await store.instances.seenSince(0)).map((entry) => entry.id)).toEqual([fromFirst.instance]);
  });
});
