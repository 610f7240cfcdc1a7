import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { expect, it } from 'vitest';

import { sfId } from '../calendar/support/directory-setup.ts';
import { postCalendarEvent, TEAMS_MEETING, WEBHOOK_SECRET } from '../calendar/support/signed-events.ts';
import { startFakeMomentum } from '../fakes/fake-momentum.ts';
import { startFakeSalesforceRecords } from '../fakes/fake-salesforce-records.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import type { Engine } from '../support/real-store.ts';
import { describeEachEngine, expectSettled, queryRows, waitSettled } from '../support/stored-state.ts';
import { startTestBridge } from '../support/test-bridge.ts';

/*
 * A meeting two deals fit equally, through the whole bridge on both engines, against a Salesforce
 * that evaluates the directory's SOQL: under each policy of the mapping file, what reaches
 * Momentum, what the event says, and the match record stored with the run (ties are never guessed
 * silently: every one is on record as ambiguous, with its candidates).
 */

const ACME = sfId('001', 41);
const DEAL_A = sfId('006', 41);
const DEAL_B = sfId('006', 42);
const cleanups = cleanupAfterEach();

async function bridgeWithPolicy(engine: Engine, ambiguous: 'account-only' | 'hold' | 'newest') {
  const salesforce = await startFakeSalesforceRecords({
    accounts: [{ Id: ACME, Website: 'https://www.acme.test' }],
    contacts: [{ Id: sfId('003', 41), Email: 'gail@acme.test', AccountId: ACME }],
    opportunities: [
      {
        Id: DEAL_A,
        AccountId: ACME,
        IsClosed: false,
        CloseDate: '2026-06-30',
        CreatedDate: '2026-01-05T00:00:00.000+0000',
        LastModifiedDate: '2026-02-01T00:00:00.000+0000',
        OwnerEmail: 'bob@example.com',
      },
      {
        Id: DEAL_B,
        AccountId: ACME,
        IsClosed: false,
        CloseDate: '2026-06-30',
        CreatedDate: '2026-01-06T00:00:00.000+0000',
        LastModifiedDate: '2026-02-20T00:00:00.000+0000',
        OwnerEmail: 'carl@example.com',
      },
    ],
  });
  const momentum = await startFakeMomentum();
  const dir = mkdtempSync(path.join(tmpdir(), 'mapping-'));
  const mappingFile = path.join(dir, 'mapping.json');
  writeFileSync(mappingFile, JSON.stringify({ matching: { ambiguous } }));
  cleanups.push(salesforce.close, momentum.close, () => rmSync(dir, { recursive: true, force: true }));
  const bridge = await startTestBridge({
    engine,
    env: {
      MOMENTUM_API_BASE_URL: momentum.url,
      MOMENTUM_API_KEY: 'mk-test-key',
      MOMENTUM_RATE_LIMIT: 'off',
      CALENDAR_WEBHOOK_SECRETS: WEBHOOK_SECRET,
      INTERNAL_EMAIL_DOMAINS: 'example.com',
      SALESFORCE_LOGIN_URL: salesforce.url,
      SALESFORCE_CLIENT_ID: 'bridge-app',
      SALESFORCE_CLIENT_SECRET: 'right-secret',
      MAPPING_FILE: mappingFile,
    },
  });
  cleanups.push(bridge.stop);
  return { momentum, bridge };
}

const meeting = JSON.stringify({ ...TEAMS_MEETING, id: 'AAMk-tie', attendees: [{ email: 'gail@acme.test', name: 'Gail Buyer' }] });

describeEachEngine('a tie between two deals through startBridge', (engine) => {
  it('when the policy is account-only (the default), then the Account goes alone and the match record lists both deals as tied', async () => {
    const { momentum, bridge } = await bridgeWithPolicy(engine, 'account-only');

    expect((await postCalendarEvent(bridge.url, meeting, { id: 'msg_tie_1' })).status).toBe(202);

    const [remap] = await momentum.waitFor(1, 15_000);
    expect(remap?.body).toMatchObject({ salesforceRecords: { accountId: ACME } });
    expect((remap?.body as { salesforceRecords: Record<string, string> }).salesforceRecords.opportunityId).toBeUndefined();
    await waitSettled(bridge.databaseUrl);
    const [stored] = await queryRows(bridge.databaseUrl, 'SELECT meeting_key, outcome, rule, record FROM match_records');
    expect(stored).toMatchObject({ meeting_key: 'calendar:calendar:AAMk-tie', outcome: 'ambiguous', rule: 'ambiguous' });
    const record = JSON.parse(String(stored!.record)) as { candidates: Array<{ id: string; status: string }>; policy: { name: string } };
    expect(record.policy.name).toBe('account-only');
    expect(record.candidates.filter((candidate) => candidate.status === 'tied').map((candidate) => candidate.id)).toEqual([DEAL_A, DEAL_B]);
    await expectSettled(bridge.databaseUrl);
  });

  it('when the policy is hold, then nothing is sent, the event is skipped as ambiguous and the tie is on record', async () => {
    const { momentum, bridge } = await bridgeWithPolicy(engine, 'hold');

    await postCalendarEvent(bridge.url, meeting, { id: 'msg_tie_2' });

    await waitSettled(bridge.databaseUrl);
    expect(momentum.requests).toEqual([]);
    expect(await queryRows(bridge.databaseUrl, 'SELECT state, state_reason FROM inbound_events')).toEqual([
      { state: 'skipped', state_reason: expect.stringMatching(/^ambiguous match, nothing sent: Ambiguous: 2 opportunities tie/) },
    ]);
    expect(await queryRows(bridge.databaseUrl, 'SELECT outcome FROM match_records')).toEqual([{ outcome: 'ambiguous' }]);
    await expectSettled(bridge.databaseUrl);
  });

  it('when the policy is newest, then the most recently modified deal is sent and the record still says it was a tie', async () => {
    const { momentum, bridge } = await bridgeWithPolicy(engine, 'newest');

    await postCalendarEvent(bridge.url, meeting, { id: 'msg_tie_3' });

    const [remap] = await momentum.waitFor(1, 15_000);
    expect(remap?.body).toMatchObject({ salesforceRecords: { opportunityId: DEAL_B, accountId: ACME } });
    await waitSettled(bridge.databaseUrl);
    expect(await queryRows(bridge.databaseUrl, 'SELECT outcome, summary FROM match_records')).toEqual([
      { outcome: 'ambiguous', summary: expect.stringContaining(`the policy "newest" took ${DEAL_B}`) },
    ]);
    await expectSettled(bridge.databaseUrl);
  });
});
