import { afterAll, beforeAll, expect, it } from 'vitest';

import { WEBHOOK_SECRET } from '../calendar/support/signed-events.ts';
import { type FakeMomentum, startFakeMomentum } from '../fakes/fake-momentum.ts';
import { ORG_ID } from '../salesforce/support/outbound-message-builder.ts';
import { describeEachEngine, expectSettled, queryRows, waitSettled } from '../support/stored-state.ts';
import { startTestBridge, type TestBridge } from '../support/test-bridge.ts';
import { ADMIN_KEY, CLEAN_REQUESTS, GOOGLE_CHANNEL, HOSTILE_CASES, ZOOM_SECRET } from './support/hostile-cases.ts';

/*
 * Every inbound route against hostile input, on both engines, through the whole bridge: each case
 * gets its precise 4xx (never a 500), nothing of it is stored, and the operator's reads (lists,
 * search, detail pages, stats, activity) still answer 200 afterwards, over rows each route stored
 * from a clean request first.
 */

const counts = async (databaseUrl: string) => {
  const [row] = await queryRows(
    databaseUrl,
    'SELECT (SELECT COUNT(*) FROM inbound_messages) AS messages, (SELECT COUNT(*) FROM inbound_events) AS events, (SELECT COUNT(*) FROM jobs) AS jobs',
  );
  return { messages: Number(row!.messages), events: Number(row!.events), jobs: Number(row!.jobs) };
};

describeEachEngine('hostile input on every inbound route', (engine) => {
  let momentum: FakeMomentum;
  let bridge: TestBridge;
  let before: Awaited<ReturnType<typeof counts>>;

  beforeAll(async () => {
    momentum = await startFakeMomentum();
    bridge = await startTestBridge({
      engine,
      env: {
        MOMENTUM_API_BASE_URL: momentum.url,
        MOMENTUM_RECEIVER_URL: momentum.url,
        MOMENTUM_API_KEY: 'mk-hostile-key',
        MOMENTUM_RATE_LIMIT: 'off',
        SALESFORCE_ORG_IDS: ORG_ID,
        CALENDAR_WEBHOOK_SECRETS: WEBHOOK_SECRET,
        ZOOM_WEBHOOK_SECRET_TOKENS: ZOOM_SECRET,
        ADMIN_API_KEYS: ADMIN_KEY,
        ADMIN_AUTH_FAILURE_LIMIT: 'off',
        INBOUND_RATE_LIMIT: 'off',
      },
    });
    const now = Date.now();
    await (await bridge.store()).channels.saveChannel({ ...GOOGLE_CHANNEL, expiration: now + 3_600_000, createdAt: now, renewedAt: null, stoppedAt: null });
    for (const clean of CLEAN_REQUESTS) expect((await clean.send(bridge.url)).status, clean.route).toBe(clean.status);
    await waitSettled(bridge.databaseUrl);
    before = await counts(bridge.databaseUrl);
  });
  afterAll(async () => {
    await bridge?.stop();
    await momentum?.close();
  });

  it.each(HOSTILE_CASES.map((item) => [item.route, item.what, item] as const))(
    'when %s gets %s, then a precise 4xx and nothing is stored',
    async (_route, _what, item) => {
      const answer = await item.send(bridge.url);

      expect(answer.status).toBe(item.status);
      for (const text of item.says) expect(answer.body).toContain(text);
      expect(await counts(bridge.databaseUrl)).toEqual(before);
    },
  );

  it('when every hostile case has been refused, then the admin reads over what was stored answer 200 and the queue is settled', async () => {
    const get = (path: string) => fetch(`${bridge.url}${path}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    const deliveries = (await (await get('/admin/deliveries')).json()) as { items: Array<{ id: number }> };
    const events = (await (await get('/admin/events')).json()) as { items: Array<{ id: number }> };
    expect(deliveries.items.length).toBeGreaterThan(0);
    expect(events.items.length).toBeGreaterThan(0);

    const paths = [
      '/admin/stats',
      '/admin/activity',
      '/admin/deliveries?q=globex',
      '/admin/deliveries?q=nothing-matches-this',
      '/admin/events?state=mapped',
      ...deliveries.items.map((item) => `/admin/deliveries/${item.id}`),
      ...events.items.map((item) => `/admin/events/${item.id}`),
    ];
    for (const path of paths) expect((await get(path)).status, path).toBe(200);
    expect(await counts(bridge.databaseUrl)).toEqual(before);
    await expectSettled(bridge.databaseUrl);
  });
});
