import { describe, expect, it } from 'vitest';

import { sfId } from '../calendar/support/directory-setup.ts';
import { postCalendarEvent, TEAMS_MEETING } from '../calendar/support/signed-events.ts';
import { outboundMessage } from '../salesforce/support/outbound-message-builder.ts';
import { postOutboundMessage } from '../salesforce/support/post-outbound-message.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { TEST_DATABASE_URL, testDatabase } from '../support/real-store.ts';
import { expectSettled, queryRows, waitSettled } from '../support/stored-state.ts';
import { startTestBridge } from '../support/test-bridge.ts';
import { openDeal, startCrmWorld } from './support/crm-world.ts';

/*
 * Two bridges on one PostgreSQL schema (SQLite serves one process): two changes of the CRM that
 * touch one meeting reach different instances at once (the Opportunity's message one, its contact
 * role's the other). The meeting is re-checked once per pending change at most, and Momentum gets
 * exactly one re-match remap.
 */

const cleanups = cleanupAfterEach();
const ACME = sfId('001', 81);
const GAIL = sfId('003', 81);
const DEAL = sfId('006', 81);

describe.skipIf(TEST_DATABASE_URL === undefined)('re-matching with two bridges on PostgreSQL', () => {
  it('when two changes touching one meeting reach two bridges at once, then Momentum receives one re-match remap', async () => {
    const { org, momentum, env } = await startCrmWorld(
      { accounts: [{ Id: ACME, Website: 'acme.test' }], contacts: [{ Id: GAIL, Email: 'gail@acme.test', AccountId: ACME }] },
      cleanups,
    );
    const database = testDatabase('postgres', 'rematch_two');
    cleanups.push(database.drop);
    const [a, b] = [await startTestBridge({ database, env }), await startTestBridge({ database, env })];
    cleanups.push(a.stop, b.stop);
    await postCalendarEvent(a.url, JSON.stringify({ ...TEAMS_MEETING, id: 'AAMk-two', attendees: [{ email: 'gail@acme.test' }] }), { id: 'msg_two' });
    await momentum.waitFor(1, 15_000);
    await waitSettled(database.url);

    org.org.Opportunity!.push(openDeal(DEAL, ACME, { CreatedDate: '2026-03-05T10:00:00.000+0000' }));
    org.org.OpportunityContactRole!.push({ Id: sfId('00K', 81), OpportunityId: DEAL, ContactId: GAIL, IsPrimary: true, Role: null });
    const message = (n: number, type: string, fields: Record<string, string>) =>
      outboundMessage({ notifications: [{ id: `04l8d0000${String(n).padStart(3, '0')}XyZAAU`, type: `sf:${type}`, fields }] });
    const answers = await Promise.all([
      postOutboundMessage(a.url, message(1, 'Opportunity', { Id: DEAL, AccountId: ACME })),
      postOutboundMessage(b.url, message(2, 'OpportunityContactRole', { Id: sfId('00K', 81), OpportunityId: DEAL, ContactId: GAIL })),
    ]);

    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    await momentum.waitFor(2, 15_000);
    await waitSettled(database.url);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(momentum.requests).toHaveLength(2);
    expect(momentum.requests[1]?.body).toMatchObject({ salesforceRecords: { opportunityId: DEAL, accountId: ACME } });
    const rematched = await queryRows(database.url, `SELECT COUNT(*) AS n FROM match_records WHERE summary LIKE 'Re-matched%'`);
    expect(Number(rematched[0]?.n)).toBe(1);
    await expectSettled(database.url);
  });
});
