import { afterEach, beforeEach, expect, it } from 'vitest';

import type { GraphSubscription, SubscriptionStore } from '../../src/store/subscription-store.ts';
import { openRealStore, type RealStore } from '../support/real-store.ts';
import { describeEachEngine } from '../support/stored-state.ts';

/*
 * Every statement of the subscription store on the real store of each engine: PostgreSQL types
 * parameters where SQLite does not, so a statement SQLite runs may be one PostgreSQL refuses.
 */

const T = 1_700_000_000_000;
const subscription = (overrides: Partial<GraphSubscription> = {}): GraphSubscription => ({
  id: 'sub-1',
  userId: 'ana@example.com',
  clientState: 'state-secret',
  expiration: T + 3 * 86_400_000,
  createdAt: T,
  renewedAt: null,
  removedAt: null,
  ...overrides,
});

describeEachEngine('the SQL subscription store', (engine) => {
  let real: RealStore;
  let store: SubscriptionStore;
  beforeEach(async () => {
    real = await openRealStore(engine, 'subscriptions');
    store = real.store.subscriptions;
  });
  afterEach(async () => real.close());

  it('when a delta link is stored after a full sync, then its window is set; an incremental link keeps it; a dropped link clears both', async () => {
    await store.watchMailbox('ana@example.com', 'admin', T);

    await store.setDeltaLink('ana@example.com', 'https://graph.example/delta?$deltatoken=1', T + 1, T);
    const full = await store.getMailbox('ana@example.com');
    await store.setDeltaLink('ana@example.com', 'https://graph.example/delta?$deltatoken=2', T + 2);
    const incremental = await store.getMailbox('ana@example.com');
    await store.setDeltaLink('ana@example.com', null, T + 3);
    const dropped = await store.getMailbox('ana@example.com');

    expect(full).toMatchObject({ deltaLink: 'https://graph.example/delta?$deltatoken=1', windowStartedAt: T, updatedAt: T + 1 });
    expect(incremental).toMatchObject({ deltaLink: 'https://graph.example/delta?$deltatoken=2', windowStartedAt: T, updatedAt: T + 2 });
    expect(dropped).toMatchObject({ deltaLink: null, windowStartedAt: null, updatedAt: T + 3 });
  });

  it('when a sync fails and then succeeds, then the error is recorded and cleared, the last sync time kept from the success', async () => {
    await store.seedMailboxes(['ana@example.com', 'bo@example.com'], T);

    await store.recordMailboxOutcome('ana@example.com', { syncedAt: T + 1 }, T + 1);
    await store.recordMailboxOutcome('ana@example.com', { error: 'HTTP 503' }, T + 2);
    const failed = await store.getMailbox('ana@example.com');
    await store.recordMailboxOutcome('ana@example.com', {}, T + 3);

    expect(failed).toMatchObject({ lastSyncAt: T + 1, lastError: 'HTTP 503' });
    expect(await store.getMailbox('ana@example.com')).toMatchObject({ lastSyncAt: T + 1, lastError: null, updatedAt: T + 3 });
    expect((await store.listMailboxes()).map((mailbox) => [mailbox.userId, mailbox.addedBy, mailbox.watching])).toEqual([
      ['ana@example.com', 'config', true],
      ['bo@example.com', 'config', true],
    ]);
  });

  it('when a mailbox is stopped and seeded again from the config, then it stays stopped; watching it again keeps its link', async () => {
    await store.watchMailbox('ana@example.com', 'admin', T);
    await store.setDeltaLink('ana@example.com', 'https://graph.example/delta?$deltatoken=1', T, T);

    expect(await store.unwatchMailbox('ana@example.com', T + 1)).toBe(true);
    await store.seedMailboxes(['ana@example.com'], T + 2);
    const stopped = await store.getMailbox('ana@example.com');
    const again = await store.watchMailbox('ana@example.com', 'admin', T + 3);

    expect(stopped).toMatchObject({ watching: false });
    expect(again).toMatchObject({ watching: true, deltaLink: 'https://graph.example/delta?$deltatoken=1' });
    expect(await store.unwatchMailbox('nobody@example.com', T)).toBe(false);
  });

  it('when subscriptions are saved, renewed and removed, then each reads back whole, and only live ones are active', async () => {
    await store.saveSubscription(subscription({ id: 'old' }));
    await store.saveSubscription(subscription({ id: 'live', createdAt: T + 1 }));

    await store.extendSubscription('live', T + 5 * 86_400_000, T + 10);
    await store.removeSubscription('old', T + 20);

    expect(await store.getSubscription('old')).toEqual(subscription({ id: 'old', removedAt: T + 20 }));
    expect(await store.getSubscription('live')).toEqual(subscription({ id: 'live', createdAt: T + 1, expiration: T + 5 * 86_400_000, renewedAt: T + 10 }));
    expect((await store.activeSubscriptions()).map((item) => item.id)).toEqual(['live']);
    expect(await store.getSubscription('unknown')).toBeUndefined();
  });

  it('when a batch names 1 000 ids, some twice and some unknown, then one call reads the stored ones, removed ones included', async () => {
    await store.saveSubscription(subscription({ id: 'a' }));
    await store.saveSubscription(subscription({ id: 'b', removedAt: T }));
    const ids = ['a', 'b', 'a', ...Array.from({ length: 997 }, (_, index) => `forged-${index}`)];

    const found = await store.getSubscriptions(ids);

    expect(found).toEqual([subscription({ id: 'a' }), subscription({ id: 'b', removedAt: T })]);
    expect(await store.getSubscriptions([])).toEqual([]);
  });
});
