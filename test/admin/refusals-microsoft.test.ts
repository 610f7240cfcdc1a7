import { expect, it } from 'vitest';

import { ADMIN_KEY, type MicrosoftScene, microsoftScene } from '../microsoft/support/ms-setup.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { describeEachEngine } from '../support/stored-state.ts';

/*
 * Graph's notifications through a bridge that watches a mailbox at the fake Graph, on both
 * engines: an item with a forged clientState is refused alone, inside an accepted batch or with
 * the whole batch, and either way GET /admin/refusals counts it by its own reason.
 */

const NOTIFICATIONS = '/calendar/microsoft/notifications';
const cleanups = cleanupAfterEach();

const item = (scene: MicrosoftScene, clientState = scene.subscription.clientState) => ({
  subscriptionId: scene.subscription.id,
  clientState,
  changeType: 'updated',
  resource: 'Users/ana/Events/AAMk',
  tenantId: 'tenant',
});

const postBatch = (scene: MicrosoftScene, items: unknown[], sender: string) =>
  fetch(`${scene.running.bridge.url}${NOTIFICATIONS}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': sender },
    body: JSON.stringify({ value: items }),
  }).then((response) => response.status);

describeEachEngine('forged Graph notifications in GET /admin/refusals', (engine) => {
  it('when one batch mixes a forged clientState with a good item and another is all forged, then both count as client_state_mismatch with their senders', async () => {
    // Arrange
    const scene = await microsoftScene(engine, cleanups)({ env: { TRUST_PROXY: 'loopback', ADMIN_API_KEYS: ADMIN_KEY } });

    // Act
    const mixed = await postBatch(scene, [item(scene), item(scene, 'forged')], '203.0.113.20');
    const forged = await postBatch(scene, [item(scene, 'forged'), item(scene, 'forged')], '203.0.113.21');
    const answer = await fetch(`${scene.running.bridge.url}/admin/refusals`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    const body = (await answer.json()) as { routes: Array<Record<string, unknown>> };

    // Assert: the replies, the answer, and (after the stop's flush) the stored count.
    expect([mixed, forged]).toEqual([202, 403]);
    expect(body.routes).toEqual([
      expect.objectContaining({
        route: NOTIFICATIONS,
        reason: 'client_state_mismatch',
        count: 2,
        examples: [expect.objectContaining({ sender: '203.0.113.21' }), expect.objectContaining({ sender: '203.0.113.20' })],
      }),
    ]);
    await scene.running.bridge.stop();
    const rows = await scene.running.rows('SELECT route, reason, refused FROM refusal_counts');
    expect(rows.map((row) => [row.route, row.reason, Number(row.refused)])).toEqual([[NOTIFICATIONS, 'client_state_mismatch', 2]]);
  });
});
