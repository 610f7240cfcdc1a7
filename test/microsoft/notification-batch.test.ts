import { expect, it } from 'vitest';

import { microsoftCalendarRouter } from '../../routes/microsoft-calendar.ts';
import type { SubscriptionStore } from '../../src/store/subscription-store.ts';
import { listenRouters } from '../support/app-harness.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { captureLogs } from '../support/log-capture.ts';
import { openRealStore } from '../support/real-store.ts';
import { describeEachEngine } from '../support/stored-state.ts';
import { post } from './support/ms-setup.ts';

/*
 * What one Graph batch costs the store: the notification routes on a real store of each engine,
 * behind a real HTTP server, with every call to the subscription store counted.
 */

const cleanups = cleanupAfterEach();
const T = Date.now();

async function receiver(engine: Parameters<typeof openRealStore>[0]) {
  const real = await openRealStore(engine, 'graph_batch');
  cleanups.push(real.close);
  const calls: Record<string, number> = {};
  // Every method of the real store, counted by name.
  const counted = new Proxy(real.store.subscriptions, {
    get(target, name: string) {
      const method = target[name as keyof SubscriptionStore] as (...args: unknown[]) => unknown;
      return (...args: unknown[]) => {
        calls[name] = (calls[name] ?? 0) + 1;
        return method.apply(target, args);
      };
    },
  });
  const router = microsoftCalendarRouter({ subscriptions: counted, store: real.store, logger: captureLogs().logger, maxBody: 1_000_000 });
  const server = await listenRouters([router], captureLogs().logger);
  cleanups.push(server.close);
  await real.store.subscriptions.saveSubscription({
    id: 'sub-live',
    userId: 'ana@example.com',
    clientState: 'the-secret',
    expiration: T + 86_400_000,
    createdAt: T,
    renewedAt: null,
    removedAt: null,
  });
  await real.store.subscriptions.watchMailbox('ana@example.com', 'admin', T);
  return { real, calls, url: `${server.url}/calendar/microsoft/notifications` };
}

const batch = (count: number, item: (index: number) => object) => JSON.stringify({ value: Array.from({ length: count }, (_, index) => item(index)) });

describeEachEngine('POST /calendar/microsoft/notifications with a batch of 1 000 items', (engine) => {
  it('when every item is forged (unknown subscriptions, a wrong clientState), then 403 after one store lookup, and nothing is stored', async () => {
    const { real, calls, url } = await receiver(engine);
    const body = batch(1000, (index) =>
      index % 2 === 0
        ? { subscriptionId: `forged-${index}`, clientState: 'guess', changeType: 'created' }
        : { subscriptionId: 'sub-live', clientState: `guess-${index}`, changeType: 'created' },
    );

    const answer = await post(url, body);

    expect(answer.status).toBe(403);
    expect(calls).toEqual({ getSubscriptions: 1 });
    expect(await real.counts()).toMatchObject({ messages: 0, events: 0, jobs: 0 });
  });

  it('when every item is good, then 202 after one store lookup and one sync job for the mailbox', async () => {
    const { real, calls, url } = await receiver(engine);

    const answer = await post(
      url,
      batch(1000, () => ({ subscriptionId: 'sub-live', clientState: 'the-secret', changeType: 'updated' })),
    );

    expect(answer.status).toBe(202);
    expect(calls).toEqual({ getSubscriptions: 1 });
    expect(await real.counts()).toMatchObject({ jobs: 1 });
  });
});
