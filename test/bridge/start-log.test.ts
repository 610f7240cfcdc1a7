import { expect, it } from 'vitest';

import { ORG_ID } from '../salesforce/support/outbound-message-builder.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { describeEachEngine } from '../support/stored-state.ts';
import { startTestBridge } from '../support/test-bridge.ts';

/*
 * The start log through the real startBridge: one line per integration saying on or off, and for
 * an off one the settings that turn it on (the same ones GET /admin/health names).
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
      'Salesforce Outbound Messages: on',
      'Salesforce lookups: off (set SALESFORCE_CLIENT_ID with SALESFORCE_CLIENT_SECRET (client credentials), or with SALESFORCE_USERNAME and SALESFORCE_PRIVATE_KEY or SALESFORCE_PRIVATE_KEY_FILE (JWT bearer))',
      'Salesforce Pub/Sub (Change Data Capture): off (set SALESFORCE_PUBSUB=on with the Salesforce lookup credentials)',
      'Google Calendar: off (set GOOGLE_SERVICE_ACCOUNT_KEY_FILE or GOOGLE_SERVICE_ACCOUNT_KEY, with PUBLIC_BASE_URL)',
      'Microsoft 365: off (set MICROSOFT_TENANT_ID, MICROSOFT_CLIENT_ID and MICROSOFT_CLIENT_SECRET or MICROSOFT_CLIENT_CERTIFICATE_FILE, with PUBLIC_BASE_URL)',
      'Zoom recordings: on (participants API off: recordings are imported without attendees)',
      'Signed calendar and recording events: off (set CALENDAR_WEBHOOK_SECRETS)',
      'Momentum: on (SANDBOX: MOMENTUM_API_KEY is not set; remaps and imports go to a built-in local receiver and are only logged)',
      'Admin API: on (1 key)',
    ]);
    expect(bridge.logs.lines().filter((line) => line.integration !== undefined && line.level !== 'info')).toEqual([]);
  });

  it('when nothing inbound is configured, then each inbound integration and the admin API say off', async () => {
    const bridge = await startTestBridge({ engine, logLevel: 'info' });
    cleanups.push(bridge.stop);

    const lines = integrationLines(bridge.logs.lines());

    expect(lines).toContain('Salesforce Outbound Messages: off (set SALESFORCE_ORG_IDS)');
    expect(lines).toContain(
      'Zoom recordings: off (set ZOOM_WEBHOOK_SECRET_TOKENS (events), ZOOM_ACCOUNT_ID, ZOOM_CLIENT_ID and ZOOM_CLIENT_SECRET (participants))',
    );
    expect(lines).toContain('Admin API: off (set ADMIN_API_KEYS)');
    expect(lines).toHaveLength(9);
  });
});
