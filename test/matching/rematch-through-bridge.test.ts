import { expect, it } from 'vitest';

import { sfId } from '../calendar/support/directory-setup.ts';
import { postCalendarEvent, TEAMS_MEETING } from '../calendar/support/signed-events.ts';
import type { FakeMomentum } from '../fakes/fake-momentum.ts';
import type { FakeSalesforceOrg } from '../fakes/fake-salesforce-org/index.ts';
import { outboundMessage } from '../salesforce/support/outbound-message-builder.ts';
import { postOutboundMessage } from '../salesforce/support/post-outbound-message.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import type { Engine } from '../support/real-store.ts';
import { describeEachEngine, expectSettled, queryRows, waitSettled } from '../support/stored-state.ts';
import { startTestBridge, type TestBridge } from '../support/test-bridge.ts';
import { openDeal, startCrmWorld } from './support/crm-world.ts';

/*
 * Matches that follow the CRM, through the whole bridge on both engines: a first call is matched
 * to its Account; the rep then creates the opportunity (or converts the Lead) and Salesforce sends
 * the record's Outbound Message; the meeting is re-matched at once, its cached lookups forgotten,
 * and exactly one remap goes out, with a match record saying why. Nothing is sent when nothing
 * changed, and a pinned meeting is never touched.
 */

const cleanups = cleanupAfterEach();
const ACME = sfId('001', 61);
const GAIL = sfId('003', 61);
const DEAL = sfId('006', 61);
const LEAD = sfId('00Q', 61);
const MEETING_START = '2026-03-02T16:00:00Z';

interface World {
  org: FakeSalesforceOrg;
  momentum: FakeMomentum;
  bridge: TestBridge;
}

async function world(engine: Engine, tables: Parameters<typeof startCrmWorld>[0]): Promise<World> {
  const { org, momentum, env } = await startCrmWorld(tables, cleanups);
  const bridge = await startTestBridge({ engine, env });
  cleanups.push(bridge.stop);
  return { org, momentum, bridge };
}

const meeting = (attendee: string) => JSON.stringify({ ...TEAMS_MEETING, id: 'AAMk-first-call', start: MEETING_START, attendees: [{ email: attendee }] });

/** An Outbound Message of one record, as the org sends it. */
const recordMessage = (n: number, type: string, fields: Record<string, string>) =>
  outboundMessage({ notifications: [{ id: `04l8d0000${String(n).padStart(3, '0')}XyZAAU`, type: `sf:${type}`, fields }] });

const newDeal = openDeal(DEAL, ACME);

describeEachEngine('re-matching when the CRM catches up, through startBridge', (engine) => {
  it('when the opportunity is created a week after the first call and its Outbound Message arrives, then the meeting is re-matched once to it, and a second message changes nothing', async () => {
    const { org, momentum, bridge } = await world(engine, {
      accounts: [{ Id: ACME, Website: 'acme.test' }],
      contacts: [{ Id: GAIL, Email: 'gail@acme.test', AccountId: ACME }],
    });
    await postCalendarEvent(bridge.url, meeting('gail@acme.test'), { id: 'msg_first' });
    const [first] = await momentum.waitFor(1, 15_000);
    expect(first?.body).toMatchObject({ salesforceRecords: { accountId: ACME } });
    await waitSettled(bridge.databaseUrl);

    // The rep creates the deal, with Gail as its primary contact role; Salesforce tells the bridge.
    org.org.Opportunity!.push(newDeal);
    org.org.OpportunityContactRole!.push({ Id: sfId('00K', 61), OpportunityId: DEAL, ContactId: GAIL, IsPrimary: true, Role: 'Decision Maker' });
    expect((await postOutboundMessage(bridge.url, recordMessage(1, 'Opportunity', { Id: DEAL, AccountId: ACME, Name: 'Acme platform' }))).status).toBe(200);

    const [, second] = await momentum.waitFor(2, 15_000);
    expect(second?.body).toMatchObject({ salesforceRecords: { opportunityId: DEAL, accountId: ACME } });
    await waitSettled(bridge.databaseUrl);
    const [latest] = await queryRows(bridge.databaseUrl, 'SELECT outcome, rule, summary FROM match_records ORDER BY id DESC LIMIT 1');
    expect(latest).toMatchObject({
      outcome: 'matched',
      rule: 'only_candidate',
      summary: expect.stringMatching(new RegExp(`^Re-matched \\(Opportunity ${DEAL} changed in Salesforce\\): Opportunity ${DEAL}`)),
    });
    const remaps = await queryRows(bridge.databaseUrl, `SELECT priority FROM jobs WHERE kind = 'remap' ORDER BY id`);
    expect(remaps.map((row) => Number(row.priority))).toEqual([1, 2]);

    // The same record saved again: re-checked, unchanged, nothing sent.
    await postOutboundMessage(bridge.url, recordMessage(2, 'Opportunity', { Id: DEAL, AccountId: ACME, Name: 'Acme platform v2' }));
    await waitSettled(bridge.databaseUrl);
    expect(momentum.requests).toHaveLength(2);
    // The first re-check moved the meeting (succeeded), the second changed nothing (skipped): as /admin/stats and the activity chart count them.
    expect(await queryRows(bridge.databaseUrl, `SELECT state, last_error FROM jobs WHERE kind = 'rematch' ORDER BY id`)).toEqual([
      { state: 'succeeded', last_error: null },
      { state: 'skipped', last_error: 'unchanged' },
    ]);
    await expectSettled(bridge.databaseUrl);
  });

  it('when a Lead who attended is converted, then the meeting moves from the Lead to the converted Account and opportunity', async () => {
    const { org, momentum, bridge } = await world(engine, { leads: [{ Id: LEAD, Email: 'lee@acme.test' }], accounts: [{ Id: ACME, Website: null }] });
    await postCalendarEvent(bridge.url, meeting('lee@acme.test'), { id: 'msg_lead' });
    const [first] = await momentum.waitFor(1, 15_000);
    expect(first?.body).toMatchObject({ salesforceRecords: { leadId: LEAD } });
    await waitSettled(bridge.databaseUrl);

    // Conversion: the Lead is converted, a Contact made on the Account, the opportunity created with the Contact's role.
    org.org.Lead![0] = { ...org.org.Lead![0], IsConverted: true };
    org.org.Contact!.push({ Id: GAIL, Email: 'lee@acme.test', AccountId: ACME });
    org.org.Opportunity!.push(newDeal);
    org.org.OpportunityContactRole!.push({ Id: sfId('00K', 62), OpportunityId: DEAL, ContactId: GAIL, IsPrimary: true, Role: null });
    await postOutboundMessage(
      bridge.url,
      recordMessage(3, 'Lead', { Id: LEAD, Email: 'lee@acme.test', IsConverted: 'true', ConvertedAccountId: ACME, ConvertedOpportunityId: DEAL }),
    );

    const [, second] = await momentum.waitFor(2, 15_000);
    expect(second?.body).toMatchObject({ salesforceRecords: { opportunityId: DEAL, accountId: ACME } });
    await waitSettled(bridge.databaseUrl);
    await expectSettled(bridge.databaseUrl);
  });

  it('when the meeting is pinned, then a CRM change re-checks nothing and sends nothing', async () => {
    const { org, momentum, bridge } = await world(engine, {
      accounts: [{ Id: ACME, Website: 'acme.test' }],
      contacts: [{ Id: GAIL, Email: 'gail@acme.test', AccountId: ACME }],
    });
    await postCalendarEvent(bridge.url, meeting('gail@acme.test'), { id: 'msg_pinned' });
    await momentum.waitFor(1, 15_000);
    await waitSettled(bridge.databaseUrl);
    const [stored] = await queryRows(bridge.databaseUrl, 'SELECT meeting_key FROM match_records');
    const meetingKey = String(stored?.meeting_key);
    await (
      await bridge.store()
    ).matches.setPin({ meetingKey, records: { accountId: ACME }, pinnedBy: 'ops', reason: 'an account-level call', pinnedAt: Date.now() });

    org.org.Opportunity!.push(newDeal);
    await postOutboundMessage(bridge.url, recordMessage(4, 'Opportunity', { Id: DEAL, AccountId: ACME }));

    await waitSettled(bridge.databaseUrl);
    expect(momentum.requests).toHaveLength(1);
    expect(await queryRows(bridge.databaseUrl, `SELECT state, last_error FROM jobs WHERE kind = 'rematch'`)).toEqual([
      { state: 'skipped', last_error: 'pinned: an operator decided this meeting' },
    ]);
    await expectSettled(bridge.databaseUrl);
  });
});
