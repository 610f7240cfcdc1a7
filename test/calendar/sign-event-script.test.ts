import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

import { describe, expect, it } from 'vitest';

import { SAMPLE_EVENT, signatureHeaders } from '../../scripts/sign-event.ts';
import { verifyStandardWebhook } from '../../src/calendar/standard-webhooks.ts';
import { startFakeMomentum } from '../fakes/fake-momentum.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { describeEachEngine, queryRows, waitSettled } from '../support/stored-state.ts';
import { startTestBridge } from '../support/test-bridge.ts';
import { ROTATED_SECRET, WEBHOOK_SECRET } from './support/signed-events.ts';

/*
 * scripts/sign-event.ts, the README's example of a signed event: it writes the Standard Webhooks
 * signature itself, so these tests are what says the bridge's verifier and a running bridge
 * accept what it signs.
 */

const SCRIPT = path.resolve(import.meta.dirname, '../../scripts/sign-event.ts');
const cleanups = cleanupAfterEach();

describe('scripts/sign-event.ts signature', () => {
  it('when the script signs a body, then the bridge’s verifier accepts it with that secret and refuses it with another or for other bytes', () => {
    const body = JSON.stringify(SAMPLE_EVENT);
    const now = Date.now();
    const headers = signatureHeaders(WEBHOOK_SECRET, body, 'msg_1', Math.floor(now / 1000));
    const input = (raw: string) => ({
      id: headers['webhook-id'],
      timestamp: headers['webhook-timestamp'],
      signature: headers['webhook-signature'],
      rawBody: Buffer.from(raw),
    });

    expect(verifyStandardWebhook(input(body), [WEBHOOK_SECRET], { nowMs: now })).toEqual({ ok: true, id: 'msg_1', timestamp: Math.floor(now / 1000) });
    expect(verifyStandardWebhook(input(body), [ROTATED_SECRET], { nowMs: now })).toMatchObject({ ok: false, reason: 'bad_signature' });
    expect(verifyStandardWebhook(input(`${body} `), [WEBHOOK_SECRET], { nowMs: now })).toMatchObject({ ok: false, reason: 'bad_signature' });
  });
});

describeEachEngine('scripts/sign-event.ts against a running bridge', (engine) => {
  it('when the script posts the sample event, then the bridge answers 202, stores it, and Momentum receives its remap', async () => {
    const momentum = await startFakeMomentum();
    const bridge = await startTestBridge({
      engine,
      env: {
        CALENDAR_WEBHOOK_SECRETS: WEBHOOK_SECRET,
        MOMENTUM_API_BASE_URL: momentum.url,
        MOMENTUM_RECEIVER_URL: momentum.url,
        MOMENTUM_API_KEY: 'mk-test-key',
        MOMENTUM_RATE_LIMIT: 'off',
      },
    });
    cleanups.push(momentum.close, bridge.stop);

    const run = await promisify(execFile)(process.execPath, [SCRIPT, bridge.url], {
      env: { PATH: process.env.PATH ?? '', CALENDAR_WEBHOOK_SECRETS: `${WEBHOOK_SECRET},${ROTATED_SECRET}` },
    });
    const [remap] = await momentum.waitFor(1);
    await waitSettled(bridge.databaseUrl);

    expect(run.stdout).toMatch(/^202 /);
    const events = await queryRows(bridge.databaseUrl, 'SELECT source, dedupe_key FROM inbound_events');
    expect(events).toEqual([{ source: 'calendar', dedupe_key: expect.stringMatching(/^calendar:msg_[0-9a-f-]{36}$/) }]);
    expect(remap?.path).toBe('/v1/meeting/remap');
    expect(remap?.body).toMatchObject({
      source: { type: 'MS_TEAMS', id: SAMPLE_EVENT.id },
      salesforceRecords: { opportunityId: SAMPLE_EVENT.salesforce.opportunityId },
    });
  });

  it('when the script’s secret is not one the bridge holds, then it exits 1 with the bridge’s 401 and nothing is stored', async () => {
    const bridge = await startTestBridge({ engine, env: { CALENDAR_WEBHOOK_SECRETS: WEBHOOK_SECRET } });
    cleanups.push(bridge.stop);

    const failed = await promisify(execFile)(process.execPath, [SCRIPT, bridge.url], {
      env: { PATH: process.env.PATH ?? '', CALENDAR_WEBHOOK_SECRETS: ROTATED_SECRET },
    }).then(
      () => undefined,
      (error: { code: number; stdout: string }) => error,
    );

    expect(failed?.code).toBe(1);
    expect(failed?.stdout).toMatch(/^401 /);
    expect(await queryRows(bridge.databaseUrl, 'SELECT id FROM inbound_events')).toEqual([]);
  });
});
