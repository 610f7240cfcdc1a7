import { randomBytes } from 'node:crypto';

import pg from 'pg';
import { describe, expect, it } from 'vitest';

import { type RunningBridge, startBridge } from '../../src/bridge.ts';
import { createMicrosoftRuntime } from '../../src/microsoft/microsoft-runtime.ts';
import { parseConfig } from '../../src/settings.ts';
import { openStore } from '../../src/store/open-store.ts';
import { startFakeMomentum } from '../fakes/fake-momentum.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { captureLogs } from '../support/log-capture.ts';
import { expectSettled, queryRows, waitSettled } from '../support/stored-state.ts';
import { waitFor } from '../support/wait-for.ts';
import { ANA, customerMeeting, fakeMicrosoft, freePort, microsoftBridgeEnv, validationReceiver } from './support/ms-bridge.ts';

const DATABASE_URL = process.env.TEST_DATABASE_URL;
const cleanups = cleanupAfterEach();

/*
 * Several instances watching the same mailboxes: PostgreSQL only, as SQLite serves one process
 * (the single-bridge Microsoft suites run on both engines).
 */

/** One schema per test: every bridge of the test shares it, as instances of one deployment do. */
function newSchema(): string {
  const schema = `ms_${randomBytes(5).toString('hex')}`;
  cleanups.push(async () => {
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  });
  return schema;
}

const settings = (microsoft: { loginUrl: string; graphUrl: string }, port: number, schema: string, momentumUrl: string) => ({
  ...microsoftBridgeEnv(microsoft, port, momentumUrl),
  DATABASE_URL: `${DATABASE_URL}?schema=${schema}`,
  DATABASE_POOL_MAX: '4',
});

describe.skipIf(!DATABASE_URL)(
  `Microsoft 365 subscriptions with several bridges on one PostgreSQL${DATABASE_URL ? '' : ' (skipped: TEST_DATABASE_URL is unset)'}`,
  () => {
    it('when two bridges start watching the same mailbox at once, then Graph gets one subscription and a notification to it reaches Momentum once', async () => {
      // Arrange
      const microsoft = await fakeMicrosoft();
      const momentum = await startFakeMomentum();
      cleanups.push(microsoft.close, momentum.close);
      const schema = newSchema();
      const ports = [await freePort(), await freePort()];
      const bridges: RunningBridge[] = [];
      // The store's migrations run once, before both start at once.
      await (await openStore(`${DATABASE_URL}?schema=${schema}`, { poolMax: 1 })).close();

      // Act
      bridges.push(
        ...(await Promise.all(
          ports.map((port) => startBridge(parseConfig(settings(microsoft, port, schema, momentum.url)), captureLogs({ level: 'warn' }).logger)),
        )),
      );
      for (const bridge of bridges) cleanups.push(bridge.stop);
      await waitFor('a subscription at Graph', () => microsoft.subscriptions.size > 0);
      // Both bridges' first upkeep rounds have run (the loser found the lease taken).
      await new Promise((resolve) => setTimeout(resolve, 500));
      const [subscription] = [...microsoft.subscriptions.values()];
      const event = microsoft.upsertEvent(ANA, customerMeeting());
      const answer = await microsoft.notify(subscription!.id, 'created', event.id);

      // Assert
      expect(microsoft.requestsOf('create')).toHaveLength(1);
      expect(answer.status).toBe(202);
      await momentum.waitFor(1, 15_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(momentum.requests).toHaveLength(1);
      // What both left stored: settled jobs, one delta link with its window, the last sync and no error.
      const url = settings(microsoft, ports[0]!, schema, momentum.url).DATABASE_URL;
      await waitSettled(url);
      await expectSettled(url);
      expect(await queryRows(url, `SELECT delta_link, window_started_at, last_sync_at, last_error FROM microsoft_mailboxes`)).toEqual([
        { delta_link: expect.stringContaining('$deltatoken='), window_started_at: expect.any(Number), last_sync_at: expect.any(Number), last_error: null },
      ]);
    });

    it('when a renewal falls due and two instances run their upkeep round together, then Graph gets exactly one renewal', async () => {
      // Arrange: two runtimes on one store, as two bridges' upkeep; the subscription last renewed 4 days ago for 5.
      const microsoft = await fakeMicrosoft();
      cleanups.push(microsoft.close);
      const schema = newSchema();
      const store = await openStore(`${DATABASE_URL}?schema=${schema}`, { poolMax: 4 });
      cleanups.push(() => store.close());
      const port = await freePort();
      const config = parseConfig({ ...settings(microsoft, port, schema, 'http://127.0.0.1:9'), MICROSOFT_SUBSCRIPTION_TTL: '5d' });
      const runtimes = [0, 1].map(() =>
        createMicrosoftRuntime(config, { store, subscriptions: store.subscriptions, leases: store.channels, logger: captureLogs().logger })!,
      );
      for (const runtime of runtimes) cleanups.push(() => runtime.close());
      const subscription = await (async () => {
        // Graph must have it to renew it: create it through the first runtime, validation answered by a stand-in.
        const receiver = await validationReceiver(port);
        cleanups.push(receiver.close);
        await store.subscriptions.seedMailboxes([ANA], Date.now());
        await runtimes[0]!.manager.maintain();
        const [created] = await store.subscriptions.activeSubscriptions();
        return created!;
      })();
      const fourDaysAgo = Date.now() - 4 * 86_400_000;
      await store.subscriptions.extendSubscription(subscription.id, fourDaysAgo + 5 * 86_400_000, fourDaysAgo);

      // Act
      const upkeeps = await Promise.all(runtimes.map((runtime, index) => runtime.start({ maintainEveryMs: 3_600_000, owner: `instance-${index}` })));
      await Promise.all(upkeeps.map((upkeep) => upkeep.runOnce({ backstop: false })));

      // Assert
      expect(microsoft.subscriptions.get(subscription.id)?.renewals).toBe(1);
      expect(microsoft.requestsOf('renew')).toHaveLength(1);
      const [renewed] = await store.subscriptions.activeSubscriptions();
      expect(renewed?.renewedAt).not.toBeNull();
      expect(renewed!.expiration).toBeGreaterThan(Date.now() + 4 * 86_400_000);
    });
  },
);
