import { expect, it } from 'vitest';

import { sfId } from '../calendar/support/directory-setup.ts';
import { postCalendarEvent, TEAMS_MEETING } from '../calendar/support/signed-events.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { describeEachEngine, queryRows } from '../support/stored-state.ts';
import { startTestBridge } from '../support/test-bridge.ts';
import { waitFor } from '../support/wait-for.ts';
import { openDeal, startCrmWorld } from './support/crm-world.ts';

/*
 * The re-match sweep through the whole bridge on both engines, with no Outbound Message set up at
 * all: the bridge asks Salesforce what changed since its watermark (SystemModstamp) every
 * REMATCH_SWEEP_INTERVAL, finds the opportunity created after the first call, and re-matches the
 * meeting once; the watermarks (the last stamp and the id read at it) are stored.
 */

const cleanups = cleanupAfterEach();
const ACME = sfId('001', 71);
const GAIL = sfId('003', 71);
const DEAL = sfId('006', 71);

describeEachEngine('the re-match sweep through startBridge', (engine) => {
  it('when an opportunity is created after the first call and no Outbound Message says so, then the next sweep finds it and the meeting is re-matched once', async () => {
    const { org, momentum, env } = await startCrmWorld(
      { accounts: [{ Id: ACME, Website: 'acme.test' }], contacts: [{ Id: GAIL, Email: 'gail@acme.test', AccountId: ACME }] },
      cleanups,
    );
    const bridge = await startTestBridge({ engine, env: { ...env, REMATCH_SWEEP_INTERVAL: '1s' } });
    cleanups.push(bridge.stop);
    const meeting = JSON.stringify({ ...TEAMS_MEETING, id: 'AAMk-swept', start: '2026-03-02T16:00:00Z', attendees: [{ email: 'gail@acme.test' }] });
    await postCalendarEvent(bridge.url, meeting, { id: 'msg_swept' });
    const [first] = await momentum.waitFor(1, 15_000);
    expect(first?.body).toMatchObject({ salesforceRecords: { accountId: ACME } });

    // The rep creates the deal with Gail as its contact role; nobody set up an Outbound Message for it.
    const stamp = new Date().toISOString();
    org.org.Opportunity!.push(openDeal(DEAL, ACME, { SystemModstamp: stamp }));

    const [, second] = await momentum.waitFor(2, 15_000);
    expect(second?.body).toMatchObject({ salesforceRecords: { opportunityId: DEAL, accountId: ACME } });
    await waitFor(
      'the sweep to store its watermark',
      async () => (await queryRows(bridge.databaseUrl, `SELECT modstamp FROM crm_watermarks WHERE object = 'Opportunity'`)).length === 1,
    );
    expect(await queryRows(bridge.databaseUrl, `SELECT modstamp FROM crm_watermarks WHERE object = 'Opportunity'`)).toEqual([{ modstamp: `${stamp} ${DEAL}` }]);
    const [latest] = await queryRows(bridge.databaseUrl, 'SELECT summary FROM match_records ORDER BY id DESC LIMIT 1');
    expect(String(latest?.summary)).toMatch(new RegExp(`^Re-matched \\(Opportunity ${DEAL} changed in Salesforce \\(sweep\\)\\)`));
    // Later sweeps find nothing new: still two remaps.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(momentum.requests).toHaveLength(2);
    // Settled but for the next sweep, always scheduled: nothing dead, nothing retried.
    const open = await queryRows(bridge.databaseUrl, `SELECT kind FROM jobs WHERE state IN ('pending', 'running') AND kind <> 'crm-sweep'`);
    expect(open).toEqual([]);
    expect(await queryRows(bridge.databaseUrl, `SELECT kind FROM jobs WHERE state = 'dead' OR attempts > 1`)).toEqual([]);
  });
});
