import { expect, it } from 'vitest';

import { notifications, ORG_ID, outboundMessage } from '../salesforce/support/outbound-message-builder.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import type { CapturedLine } from '../support/log-capture.ts';
import { testDatabase } from '../support/real-store.ts';
import { describeEachEngine, queryRows } from '../support/stored-state.ts';
import { startTestBridge, type TestBridge } from '../support/test-bridge.ts';

/*
 * Refused inbound traffic through the real startBridge wiring on each engine: refusals of several
 * kinds over HTTP, then GET /admin/refusals, the rows the flushes wrote, and the log lines.
 */

const ADMIN_KEY = 'refusals-admin-key-0123456789';
const WEBHOOK_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const FOREIGN_ORG = '00D000000000001AAA';
const cleanups = cleanupAfterEach();

async function bridgeOn(engine: 'sqlite' | 'postgres', env: Record<string, string> = {}, logLevel = 'warn') {
  // The test's own database: the rows are read after the bridge stopped (its last flush included).
  const database = testDatabase(engine, 'refusals');
  cleanups.push(database.drop);
  const bridge = await startTestBridge({
    database,
    logLevel,
    env: { ADMIN_API_KEYS: ADMIN_KEY, SALESFORCE_ORG_IDS: ORG_ID, CALENDAR_WEBHOOK_SECRETS: WEBHOOK_SECRET, TRUST_PROXY: 'loopback', ...env },
  });
  cleanups.push(bridge.stop);
  return bridge;
}

const from = (sender: string) => ({ 'x-forwarded-for': sender });
const post = (bridge: TestBridge, path: string, headers: Record<string, string>, body: string) =>
  fetch(`${bridge.url}${path}`, { method: 'POST', headers, body }).then(async (response) => ({ status: response.status, text: await response.text() }));
const soap = (sender: string) => ({ 'content-type': 'text/xml; charset=UTF-8', soapaction: '""', ...from(sender) });
const json = (sender: string) => ({ 'content-type': 'application/json', ...from(sender) });

async function refusals(bridge: TestBridge, query = '') {
  const response = await fetch(`${bridge.url}/admin/refusals${query}`, { headers: { 'x-api-key': ADMIN_KEY } });
  return { status: response.status, body: (await response.json()) as { windowHours: number; total: number; routes: Array<Record<string, unknown>> } };
}

const entry = (body: { routes: Array<Record<string, unknown>> }, route: string, reason: string) =>
  body.routes.find((item) => item.route === route && item.reason === reason);
const withMessage = (lines: CapturedLine[], message: string) => lines.filter((line) => line.message === message);

describeEachEngine('GET /admin/refusals through startBridge', (engine) => {
  it('when requests of several kinds are refused, then the answer counts each route and reason with its newest examples, and the stored rows hold the same and no body', async () => {
    // Arrange
    const bridge = await bridgeOn(engine);
    const foreign = outboundMessage({ notifications: notifications(1), orgId: FOREIGN_ORG });

    // Act: a foreign org twice, a wrong Salesforce path twice, a bad signature, an unknown Google channel, Zoom and Graph not configured, a body too large.
    const replies = [
      await post(bridge, '/salesforce/outbound-message', soap('203.0.113.1'), foreign),
      await post(bridge, '/salesforce/outbound-message', soap('203.0.113.2'), foreign),
      await post(bridge, '/salesforce/outbound-messages', soap('203.0.113.3'), foreign),
      await post(bridge, '/salesforce/outbound-messages', soap('203.0.113.3'), foreign),
      await post(
        bridge,
        '/calendar/events',
        { ...json('198.51.100.7'), 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' },
        '{"secret":"never stored"}',
      ),
      await post(
        bridge,
        '/calendar/google/notifications',
        {
          ...from('198.51.100.8'),
          'x-goog-channel-id': 'bridge-00000000-0000-4000-8000-000000000000',
          'x-goog-channel-token': 'token',
          'x-goog-resource-id': 'resource',
          'x-goog-resource-state': 'exists',
          'x-goog-message-number': '10',
        },
        '',
      ),
      await post(bridge, '/recordings/zoom/events', json('198.51.100.9'), '{}'),
      await post(bridge, '/calendar/microsoft/notifications', json('198.51.100.10'), '{"value":[]}'),
      await post(bridge, '/calendar/events', json('198.51.100.11'), `"${'x'.repeat(300 * 1024)}"`),
    ];
    const answer = await refusals(bridge);

    // Assert: the replies, then the admin answer (counted in memory, not written yet)…
    expect(replies.map((reply) => reply.status)).toEqual([403, 403, 404, 404, 401, 404, 503, 503, 413]);
    expect(answer.status).toBe(200);
    expect(answer.body.windowHours).toBe(24);
    expect(answer.body.total).toBe(7);
    expect(entry(answer.body, '/salesforce/outbound-message', 'org_not_allowed')).toMatchObject({
      count: 2,
      examples: [
        { sender: '203.0.113.2', reason: 'org_not_allowed', route: '/salesforce/outbound-message', at: expect.any(String) },
        { sender: '203.0.113.1', reason: 'org_not_allowed', route: '/salesforce/outbound-message', at: expect.any(String) },
      ],
    });
    expect(answer.body.routes[0]).toMatchObject({ route: '/salesforce/outbound-message', reason: 'org_not_allowed', count: 2 });
    expect(entry(answer.body, '/calendar/events', 'invalid_signature')).toMatchObject({ count: 1, examples: [{ sender: '198.51.100.7' }] });
    expect(entry(answer.body, '/calendar/events', 'body_too_large')).toMatchObject({ count: 1, examples: [{ sender: '198.51.100.11' }] });
    expect(entry(answer.body, '/calendar/google/notifications', 'unknown_channel')).toMatchObject({ count: 1 });
    expect(entry(answer.body, '/recordings/zoom/events', 'zoom_not_configured')).toMatchObject({ count: 1, examples: [{ sender: '198.51.100.9' }] });
    expect(entry(answer.body, '/calendar/microsoft/notifications', 'microsoft_not_configured')).toMatchObject({ count: 1 });
    // …a wrong path is no inbound route: logged (below), not counted.
    expect(answer.body.routes.some((item) => item.route === '/salesforce/outbound-messages')).toBe(false);

    // …the log: the wrong path named once, a route not configured a warning without a stack…
    const lines = bridge.logs.lines();
    const pathLines = withMessage(lines, 'salesforce request refused at this path (logged once per path)');
    expect(pathLines.map((line) => [line.path, line.status, line.reason])).toEqual([
      ['/salesforce/outbound-message', 403, 'org_not_allowed'],
      ['/salesforce/outbound-messages', 404, 'not_found'],
    ]);
    const notConfigured = withMessage(lines, 'request refused: not configured');
    expect(notConfigured.map((line) => [line.level, line.code])).toEqual([
      ['warn', 'zoom_not_configured'],
      ['warn', 'microsoft_not_configured'],
    ]);
    expect(notConfigured.every((line) => line.error === undefined && !JSON.stringify(line).includes('stack'))).toBe(true);
    expect(lines.some((line) => line.level === 'error')).toBe(false);

    // …and what the last flush (at stop) stored: counts per minute, the examples, never a body.
    await bridge.stop();
    const counts = await queryRows(
      bridge.databaseUrl,
      'SELECT route, reason, SUM(refused) AS refused FROM refusal_counts GROUP BY route, reason ORDER BY route, reason',
    );
    expect(counts.map((row) => [row.route, row.reason, Number(row.refused)])).toEqual([
      ['/calendar/events', 'body_too_large', 1],
      ['/calendar/events', 'invalid_signature', 1],
      ['/calendar/google/notifications', 'unknown_channel', 1],
      ['/calendar/microsoft/notifications', 'microsoft_not_configured', 1],
      ['/recordings/zoom/events', 'zoom_not_configured', 1],
      ['/salesforce/outbound-message', 'org_not_allowed', 2],
    ]);
    const examples = await queryRows(bridge.databaseUrl, 'SELECT * FROM refusal_examples ORDER BY id');
    expect(examples).toHaveLength(7);
    expect(examples.map((row) => row.sender)).toContain('203.0.113.1');
    expect(JSON.stringify(examples)).not.toContain('never stored');
    expect(Object.keys(examples[0] ?? {}).sort()).toEqual(['at', 'id', 'reason', 'route', 'sender']);
  });

  it('when 1 000 requests are refused, then the answer counts them all at once and at most a handful of flushes store them: one row per minute and five examples', async () => {
    // Arrange: flushes are logged at debug.
    const bridge = await bridgeOn(engine, {}, 'debug');
    const foreign = outboundMessage({ notifications: notifications(1), orgId: FOREIGN_ORG });

    // Act: 1 000 refusals, 20 at a time, from 1 000 addresses.
    for (let batch = 0; batch < 50; batch += 1) {
      await Promise.all(Array.from({ length: 20 }, (_, i) => post(bridge, '/salesforce/outbound-message', soap(`10.0.${batch}.${i + 1}`), foreign)));
    }
    const answer = await refusals(bridge, '?hours=1');
    await bridge.stop();

    // Assert: the answer, current before any write…
    expect(answer.body).toMatchObject({ windowHours: 1, total: 1000 });
    const counted = entry(answer.body, '/salesforce/outbound-message', 'org_not_allowed');
    expect(counted).toMatchObject({ count: 1000 });
    expect(counted?.examples).toHaveLength(5);
    // …the writes: a flush every 5 s and one at stop, whatever the number of requests…
    const flushes = withMessage(bridge.logs.lines(), 'refusals stored');
    expect(flushes.length).toBeGreaterThanOrEqual(1);
    expect(flushes.length).toBeLessThanOrEqual(4);
    expect(flushes.reduce((sum, line) => sum + Number(line.refused), 0)).toBe(1000);
    // …and the rows: one per minute the flood lasted, the newest five examples.
    const counts = await queryRows(bridge.databaseUrl, 'SELECT refused FROM refusal_counts');
    expect(counts.length).toBeLessThanOrEqual(2);
    expect(counts.reduce((sum, row) => sum + Number(row.refused), 0)).toBe(1000);
    expect(await queryRows(bridge.databaseUrl, 'SELECT sender FROM refusal_examples')).toHaveLength(5);
    // The path is logged once, not per request.
    expect(withMessage(bridge.logs.lines(), 'salesforce request refused at this path (logged once per path)')).toHaveLength(1);
  });

  it('when a sender passes INBOUND_RATE_LIMIT, then its 429s are counted as rate_limited under the route it posted to', async () => {
    // Arrange
    const bridge = await bridgeOn(engine, { INBOUND_RATE_LIMIT: '2/1m' });

    // Act
    const statuses = [];
    for (let n = 0; n < 4; n += 1) statuses.push((await post(bridge, '/recordings/zoom/events', json('192.0.2.44'), '{}')).status);
    const answer = await refusals(bridge);

    // Assert
    expect(statuses).toEqual([503, 503, 429, 429]);
    expect(entry(answer.body, '/recordings/zoom/events', 'rate_limited')).toMatchObject({
      count: 2,
      examples: [{ sender: '192.0.2.44' }, { sender: '192.0.2.44' }],
    });
    expect(entry(answer.body, '/recordings/zoom/events', 'zoom_not_configured')).toMatchObject({ count: 2 });
  });

  it('when ?hours= is out of range, then 400 naming the limit', async () => {
    const bridge = await bridgeOn(engine);

    const answer = await refusals(bridge, '?hours=49');

    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain('at most 48 hours');
  });
});
