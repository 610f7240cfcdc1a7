import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { expect, it } from 'vitest';

import { KEY } from '../admin/support/admin-app.ts';
import { postCalendarEvent, WEBHOOK_SECRET } from '../calendar/support/signed-events.ts';
import { type FakeMomentum, startFakeMomentum } from '../fakes/fake-momentum.ts';
import { ORG_ID, outboundMessage } from '../salesforce/support/outbound-message-builder.ts';
import { postOutboundMessage } from '../salesforce/support/post-outbound-message.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import type { Engine } from '../support/real-store.ts';
import { describeEachEngine, expectSettled, queryRows, waitSettled } from '../support/stored-state.ts';
import { startTestBridge, type TestBridge } from '../support/test-bridge.ts';

/*
 * Recording and call links through the real startBridge wiring, on every route that takes one:
 * only absolute http(s) URLs are stored and forwarded. Before, a signed recording and a manual
 * import carrying a `javascript:` or `data:` link were accepted and the link sent to Momentum.
 */

const JAVASCRIPT = 'javascript:alert(document.cookie)';
const DATA = 'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==';
const RECORDING = 'https://recorder.example.net/r/42';

const cleanups = cleanupAfterEach();

/** A mapping file importing Gong call records, whose link is in Gong__Call_URL__c. */
function gongMappingFile(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'links-mapping-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'mapping.json');
  const rule = { action: 'import', meetingIdField: 'Gong__Call_ID__c', titleField: 'Gong__Title__c', recordingUrlField: 'Gong__Call_URL__c' };
  writeFileSync(file, JSON.stringify({ sObjects: { Gong__Gong_Call__c: rule } }));
  return file;
}

async function setup(engine: Engine): Promise<{ bridge: TestBridge; momentum: FakeMomentum }> {
  const momentum = await startFakeMomentum();
  cleanups.push(momentum.close);
  const bridge = await startTestBridge({
    engine,
    env: {
      MOMENTUM_API_BASE_URL: momentum.url,
      MOMENTUM_RECEIVER_URL: momentum.url,
      MOMENTUM_API_KEY: 'mk-test-key',
      MOMENTUM_RATE_LIMIT: 'off',
      CALENDAR_WEBHOOK_SECRETS: WEBHOOK_SECRET,
      ADMIN_API_KEYS: KEY,
      SALESFORCE_ORG_IDS: ORG_ID,
      MAPPING_FILE: gongMappingFile(),
      INTERNAL_EMAIL_DOMAINS: 'example.com',
    },
  });
  cleanups.push(bridge.stop);
  return { bridge, momentum };
}

const recordingBody = (links: { recordingUrl: string; callUrl?: string }) =>
  JSON.stringify({ kind: 'recording', version: 1, id: 'rec-42', ...links, host: { email: 'ana.rep@example.com' } });

const postImport = (bridge: TestBridge, body: object) =>
  fetch(`${bridge.url}/admin/meetings/import`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** One save of the Gong call record (each save is its own notification). */
const gongCall = (link: string, notificationId = '04l8d0000001GonAAE') =>
  outboundMessage({
    notifications: [
      {
        id: notificationId,
        type: 'sf:Gong__Gong_Call__c',
        fields: { Id: 'a0B8d000001GongEAC', Gong__Call_ID__c: '8812345678901234567', Gong__Title__c: 'Globex | discovery', Gong__Call_URL__c: link },
      },
    ],
  });

const rows = (bridge: TestBridge, sql: string) => queryRows(bridge.databaseUrl, sql);

describeEachEngine('recording and call links through startBridge', (engine) => {
  it('when a signed recording links with javascript: or data:, then 400 names the field, nothing is stored or sent; the corrected recording is imported', async () => {
    const { bridge, momentum } = await setup(engine);

    const scripted = await postCalendarEvent(bridge.url, recordingBody({ recordingUrl: JAVASCRIPT }), { id: 'msg_js' });
    const dataCall = await postCalendarEvent(bridge.url, recordingBody({ recordingUrl: RECORDING, callUrl: DATA }), { id: 'msg_data' });
    const refused = [await scripted.json(), await dataCall.json()] as Array<{ error: { details: { issues: Array<{ path: string }> } } }>;
    const storedAfterRefusals = await rows(bridge, 'SELECT id FROM inbound_events');
    const corrected = await postCalendarEvent(bridge.url, recordingBody({ recordingUrl: RECORDING }), { id: 'msg_ok' });
    const [sent] = await momentum.waitFor(1);
    await waitSettled(bridge.databaseUrl);

    expect([scripted.status, dataCall.status, corrected.status]).toEqual([400, 400, 202]);
    expect(refused.map((body) => body.error.details.issues.map((issue) => issue.path))).toEqual([['recordingUrl'], ['callUrl']]);
    expect(storedAfterRefusals).toEqual([]);
    expect(sent?.path).toBe('/user-provided-meeting');
    expect(sent?.body).toMatchObject({ meeting: { id: 'rec-42', recordingUrl: RECORDING } });
    expect(momentum.requests).toHaveLength(1);
    expect(await rows(bridge, 'SELECT source, sender_id, state FROM inbound_events')).toEqual([{ source: 'recording', sender_id: 'msg_ok', state: 'mapped' }]);
    const jobs = await expectSettled(bridge.databaseUrl);
    expect(jobs.map((job) => [job.kind, job.state])).toEqual([
      ['map-event', 'succeeded'],
      ['import', 'succeeded'],
    ]);
  });

  it('when an operator imports a meeting with a javascript: or data: link, then 400 names the field, nothing is queued or sent; with https it is imported', async () => {
    const { bridge, momentum } = await setup(engine);

    const scripted = await postImport(bridge, { meeting: { id: 'ext-1', recordingUrl: JAVASCRIPT } });
    const dataCall = await postImport(bridge, { meeting: { id: 'ext-1', recordingUrl: RECORDING, callUrl: DATA } });
    const refused = [await scripted.json(), await dataCall.json()] as Array<{ error: { code: string; details: Array<{ path: string }> } }>;
    const queuedAfterRefusals = await rows(bridge, 'SELECT id FROM jobs');
    const accepted = await postImport(bridge, { meeting: { id: 'ext-1', recordingUrl: RECORDING } });
    const [sent] = await momentum.waitFor(1);
    await waitSettled(bridge.databaseUrl);

    expect([scripted.status, dataCall.status, accepted.status]).toEqual([400, 400, 202]);
    expect(refused.map((body) => [body.error.code, body.error.details.map((issue) => issue.path)])).toEqual([
      ['invalid_body', ['meeting.recordingUrl']],
      ['invalid_body', ['meeting.callUrl']],
    ]);
    expect(queuedAfterRefusals).toEqual([]);
    expect(sent?.body).toEqual({ meeting: { id: 'ext-1', recordingUrl: RECORDING } });
    expect(momentum.requests).toHaveLength(1);
    const jobs = await expectSettled(bridge.databaseUrl);
    expect(jobs.map((job) => [job.kind, job.state])).toEqual([['import', 'succeeded']]);
  });

  it('when a Salesforce recording record holds a javascript: link, then it is acknowledged and skipped naming the field, and nothing is sent', async () => {
    const { bridge, momentum } = await setup(engine);

    const ack = await postOutboundMessage(bridge.url, gongCall(JAVASCRIPT));
    await waitSettled(bridge.databaseUrl);

    expect(ack.status).toBe(200);
    expect(await ack.text()).toContain('<Ack>true</Ack>');
    expect(await rows(bridge, 'SELECT source, state, state_reason FROM inbound_events')).toEqual([
      {
        source: 'salesforce',
        state: 'skipped',
        state_reason: `Gong__Call_URL__c "${JAVASCRIPT}" is not an absolute http or https URL: the recording is not imported`,
      },
    ]);
    const jobs = await expectSettled(bridge.databaseUrl);
    expect(jobs.map((job) => [job.kind, job.state])).toEqual([['map-event', 'skipped']]);
    expect(momentum.requests).toEqual([]);
  });

  it('when the Salesforce record is corrected to an https link, then it is imported with it', async () => {
    const { bridge, momentum } = await setup(engine);

    await postOutboundMessage(bridge.url, gongCall(DATA));
    await waitSettled(bridge.databaseUrl);
    const ack = await postOutboundMessage(bridge.url, gongCall(RECORDING, '04l8d0000002GonAAE'));
    const [sent] = await momentum.waitFor(1);
    await waitSettled(bridge.databaseUrl);

    expect(ack.status).toBe(200);
    expect(sent?.body).toMatchObject({ meeting: { id: '8812345678901234567', title: 'Globex | discovery', recordingUrl: RECORDING } });
    expect(momentum.requests).toHaveLength(1);
    expect((await rows(bridge, 'SELECT state FROM inbound_events ORDER BY id')).map((row) => row.state)).toEqual(['skipped', 'mapped']);
    const jobs = await expectSettled(bridge.databaseUrl);
    expect(jobs.map((job) => [job.kind, job.state])).toEqual([
      ['map-event', 'skipped'],
      ['map-event', 'succeeded'],
      ['import', 'succeeded'],
    ]);
  });
});
