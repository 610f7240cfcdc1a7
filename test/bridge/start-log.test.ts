import { expect, it } from 'vitest';

import { ORG_ID } from '../salesforce/support/outbound-message-builder.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { describeEachEngine } from '../support/stored-state.ts';
import { startTestBridge } from '../support/test-bridge.ts';

/*
 * The start log through the real startBridge: one line per integration saying on or off, and for
 * an off one the settings that turn it on (the same ones its route's 503 names).
 */

const cleanups = cleanupAfterEach();

const integrationLines = (lines: Array<Record<string, unknown>>) => lines.filter((line) => line.integration !== undefined).map((line) => line.message);

describeEachEngine('the start log', (engine) => {
  it('when some integrations are configured and others not, then one line each says on, or off and which setting to set', async () => {
    const bridge = await startTestBridge({
      engine,
      logLevel: 'info',
      env: { SALESFORCE_ORG_IDS: ORG_ID, ZOOM_WEBHOOK_SECRET_TOKENS: 'zoom-secret-token-0123', ADMIN_API_KEYS: 'start-log-admin-key-0123456789' },
    });
    cleanups.push(bridge.stop);

    expect(integrationLines(bridge.logs.lines())).toEqual([
      'salesforce outbound messages: on (1 org id)',
      'salesforce lookups: off (set SALESFORCE_CLIENT_ID with SALESFORCE_CLIENT_SECRET, or with SALESFORCE_USERNAME and SALESFORCE_PRIVATE_KEY)',
      'google calendar: off (set GOOGLE_SERVICE_ACCOUNT_KEY or GOOGLE_SERVICE_ACCOUNT_KEY_FILE)',
      'microsoft 365 calendars: off (set MICROSOFT_TENANT_ID and MICROSOFT_CLIENT_ID)',
      'signed calendar events: off (set CALENDAR_WEBHOOK_SECRETS)',
      'zoom recordings: on (without attendees: set ZOOM_ACCOUNT_ID, ZOOM_CLIENT_ID, ZOOM_CLIENT_SECRET)',
      'momentum: sandbox (set MOMENTUM_API_KEY)',
      'admin API: on (1 key)',
    ]);
    expect(bridge.logs.lines().filter((line) => line.integration !== undefined && line.level !== 'info')).toEqual([]);
  });

  it('when nothing inbound is configured, then each inbound integration and the admin API say off', async () => {
    const bridge = await startTestBridge({ engine, logLevel: 'info' });
    cleanups.push(bridge.stop);

    const lines = integrationLines(bridge.logs.lines());

    expect(lines).toContain('salesforce outbound messages: off (set SALESFORCE_ORG_IDS)');
    expect(lines).toContain('zoom recordings: off (set ZOOM_WEBHOOK_SECRET_TOKENS)');
    expect(lines).toContain('admin API: off (set ADMIN_API_KEYS)');
    expect(lines).toHaveLength(8);
  });
});
