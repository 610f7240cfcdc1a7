import { beforeAll, expect, it } from 'vitest';

import { type MicrosoftScene, microsoftScene, settled } from '../microsoft/support/ms-setup.ts';
import { type Cleanup } from '../support/cleanups.ts';
import { describeEachEngine, queryRows } from '../support/stored-state.ts';

/*
 * Hostile input on Graph's two routes, on both engines, through a bridge that watches a mailbox at
 * the fake Graph: each case gets its precise 4xx (or, for items no live subscription owns, 403),
 * nothing is stored, and the admin reads still answer afterwards. Graph adds fields to its
 * notifications over time, so unknown fields are Graph's business, not a refusal.
 */

const ADMIN_KEY = 'hostile-ms-admin-key-0123456789';
const NOTIFICATIONS = '/calendar/microsoft/notifications';
const LIFECYCLE = '/calendar/microsoft/lifecycle';

interface Case {
  route: string;
  what: string;
  body: (scene: MicrosoftScene) => string;
  contentType?: string;
  status: number;
  says: string;
}

const item = (scene: MicrosoftScene, extra: Record<string, unknown> = {}) => ({
  subscriptionId: scene.subscription.id,
  clientState: scene.subscription.clientState,
  changeType: 'updated',
  resource: 'Users/ana/Events/AAMk',
  tenantId: 'tenant',
  ...extra,
});

const CASES: Case[] = [
  {
    route: NOTIFICATIONS,
    what: 'U+0000 in the clientState',
    body: (s) => JSON.stringify({ value: [item(s, { clientState: 'x\u0000' })] }),
    status: 400,
    says: 'U+0000',
  },
  {
    route: NOTIFICATIONS,
    what: 'an unpaired surrogate in the subscriptionId',
    body: (s) => JSON.stringify({ value: [item(s, { subscriptionId: '\uD800' })] }),
    status: 400,
    says: 'surrogate',
  },
  {
    route: NOTIFICATIONS,
    what: 'a 1 001-item batch (Graph sends at most 1 000)',
    body: (s) => JSON.stringify({ value: Array.from({ length: 1_001 }, () => item(s, { clientState: 'forged' })) }),
    status: 400,
    says: '1 to 1000 items',
  },
  {
    route: NOTIFICATIONS,
    what: 'a 10 kB subscriptionId',
    body: (s) => JSON.stringify({ value: [item(s, { subscriptionId: 'x'.repeat(10_000) })] }),
    status: 400,
    says: 'invalid_notification',
  },
  { route: NOTIFICATIONS, what: 'a body that is not Graph’s', body: () => JSON.stringify({ items: [] }), status: 400, says: 'invalid_notification' },
  { route: NOTIFICATIONS, what: 'a form body', body: () => 'value=1', contentType: 'application/x-www-form-urlencoded', status: 415, says: 'application/json' },
  {
    route: LIFECYCLE,
    what: 'U+0000 in the lifecycleEvent',
    body: (s) => JSON.stringify({ value: [item(s, { lifecycleEvent: 'missed\u0000' })] }),
    status: 400,
    says: 'U+0000',
  },
  {
    route: LIFECYCLE,
    what: 'a forged clientState',
    body: (s) => JSON.stringify({ value: [item(s, { clientState: 'forged', lifecycleEvent: 'missed' })] }),
    status: 403,
    says: 'client_state_mismatch',
  },
  { route: LIFECYCLE, what: 'malformed JSON', body: () => '{"value": [', status: 400, says: 'JSON' },
  {
    route: LIFECYCLE,
    what: 'a body past CALENDAR_MAX_BODY',
    body: (s) => JSON.stringify({ value: [item(s, { lifecycleEvent: 'missed', pad: 'p'.repeat(300_000) })] }),
    status: 413,
    says: 'body_too_large',
  },
];

const counts = async (databaseUrl: string) =>
  (
    await queryRows(
      databaseUrl,
      'SELECT (SELECT COUNT(*) FROM inbound_messages) AS messages, (SELECT COUNT(*) FROM inbound_events) AS events, (SELECT COUNT(*) FROM jobs) AS jobs',
    )
  )[0];

describeEachEngine('hostile input on the Microsoft Graph routes', (engine) => {
  const cleanups: Cleanup[] = [];
  let scene: MicrosoftScene;
  let before: Awaited<ReturnType<typeof counts>>;

  beforeAll(async () => {
    scene = await microsoftScene(engine, cleanups)({ env: { ADMIN_API_KEYS: ADMIN_KEY } });
    before = await counts(scene.running.bridge.databaseUrl);
    return async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    };
  });

  it.each(CASES.map((item) => [item.route, item.what, item] as const))(
    'when %s gets %s, then a precise 4xx and nothing is stored',
    async (route, _what, item) => {
      const response = await fetch(`${scene.running.bridge.url}${route}`, {
        method: 'POST',
        headers: { 'content-type': item.contentType ?? 'application/json' },
        body: item.body(scene),
      });

      expect(response.status).toBe(item.status);
      expect(await response.text()).toContain(item.says);
      expect(await counts(scene.running.bridge.databaseUrl)).toEqual(before);
    },
  );

  it('when every hostile case has been refused, then the admin reads answer 200 and the queue is settled', async () => {
    const get = (path: string) => fetch(`${scene.running.bridge.url}${path}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    for (const path of ['/admin/stats', '/admin/events', '/admin/deliveries?q=globex', '/admin/calendars', '/admin/activity']) {
      expect((await get(path)).status, path).toBe(200);
    }
    await settled(scene.running);
  });
});
