import { expect, it } from 'vitest';

import { cleanupAfterEach } from '../support/cleanups.ts';
import type { Engine } from '../support/real-store.ts';
import { describeEachEngine, expectSettled, waitSettled } from '../support/stored-state.ts';
import { meetingKey, meetingPath, startMatchWorld } from './support/match-bridge.ts';
import { startTiedSalesforce, TIED_ACCOUNT, TIED_OPPORTUNITIES, tiedSalesforceSettings } from './support/tied-salesforce.ts';

/*
 * The ambiguous queue through the real startBridge wiring, on both engines: a meeting whose
 * attendee's Account has two opportunities nothing sets apart (a loopback Salesforce org) is a tie,
 * sent under the default policy (the Account alone) and listed for an operator, who pins one.
 */

const BUYER = 'hank.buyer@globex.test';
const NAMED = '0068d0000101XyZAAU';
const cleanups = cleanupAfterEach();

async function start(engine: Engine) {
  const org = await startTiedSalesforce(BUYER);
  cleanups.push(org.close);
  return { org, world: await startMatchWorld(engine, cleanups, tiedSalesforceSettings(org)) };
}

const idsOf = (items: Array<{ id: number }>) => items.map((item) => item.id);

describeEachEngine('the ambiguous queue through startBridge', (engine) => {
  it('when an attendee’s Account has two equal opportunities, then the tie is sent as the Account alone and listed with both candidates', async () => {
    const { org, world } = await start(engine);

    await world.meeting('msg_1');
    const [sent] = await world.momentum.waitFor(1);
    await waitSettled(world.bridge.databaseUrl);
    const queue = (await world.get('/admin/matches?outcome=ambiguous').expect(200)).body;
    const [delivery] = (await world.get('/admin/deliveries').expect(200)).body.items;
    const detail = (await world.get(`/admin/deliveries/${delivery.id}`).expect(200)).body;

    expect(sent!.body).toMatchObject({ salesforceRecords: { accountId: TIED_ACCOUNT } });
    expect((sent!.body as { salesforceRecords: object }).salesforceRecords).toEqual({ accountId: TIED_ACCOUNT });
    expect(queue.nextCursor).toBeNull();
    expect(queue.items).toEqual([
      {
        id: detail.match.id,
        meetingKey: meetingKey(),
        eventId: delivery.eventId,
        title: 'Globex pricing review',
        start: '2026-03-02T16:00:00Z',
        outcome: 'ambiguous',
        rule: 'ambiguous',
        summary: `Ambiguous: 2 opportunities tie (${TIED_OPPORTUNITIES.join(', ')}); Account ${TIED_ACCOUNT} sent alone`,
        records: { accountId: TIED_ACCOUNT },
        policy: { name: 'account-only', applied: `sent Account ${TIED_ACCOUNT} without an opportunity` },
        candidates: TIED_OPPORTUNITIES.map((id) => expect.objectContaining({ kind: 'opportunity', id, status: 'tied', accountId: TIED_ACCOUNT })),
        createdAt: expect.any(String),
      },
    ]);
    expect(queue.items[0].candidates[0]).toMatchObject({ name: 'Globex renewal', score: { roles: 0, owner: false, timing: 2 } });
    expect(queue.items[0].candidates[0].why).toContain('open at the meeting; equal on every signal with 1 other');
    expect(detail.match).toMatchObject({ outcome: 'ambiguous', attendees: expect.arrayContaining([expect.objectContaining({ email: BUYER })]) });
    expect(org.queries.some((soql) => soql.includes('FROM Contact WHERE Email IN'))).toBe(true);
    expect(org.queries.some((soql) => soql.includes('FROM Opportunity WHERE AccountId IN'))).toBe(true);
    await expectSettled(world.bridge.databaseUrl);
  });

  it('when the events and deliveries are filtered by match outcome, then each listing keeps those whose match record has it', async () => {
    const { world } = await start(engine);
    await world.meeting('msg_1');
    await world.meeting('msg_2', { id: 'teams-43', salesforce: { opportunityId: NAMED } });
    await world.momentum.waitFor(2);
    await waitSettled(world.bridge.databaseUrl);
    const tied = (await world.get(meetingPath()).expect(200)).body;
    const named = (await world.get(meetingPath('teams-43')).expect(200)).body;

    const listed = async (path: string) => idsOf((await world.get(path).expect(200)).body.items);

    expect(await listed('/admin/events?match=ambiguous')).toEqual(idsOf(tied.events));
    expect(await listed('/admin/events?match=matched')).toEqual(idsOf(named.events));
    expect(await listed('/admin/events?match=pinned')).toEqual([]);
    expect(await listed('/admin/deliveries?match=ambiguous')).toEqual(idsOf(tied.deliveries));
    expect(await listed('/admin/deliveries?match=matched&kind=remap')).toEqual(idsOf(named.deliveries));
    expect(await listed('/admin/deliveries?match=none')).toEqual([]);
    expect((await world.get('/admin/matches?outcome=matched').expect(200)).body.items.map((item: { meetingKey: string }) => item.meetingKey)).toEqual([
      meetingKey('teams-43'),
    ]);
    await expectSettled(world.bridge.databaseUrl);
  });

  it('when the operator pins one of the tied opportunities, then Momentum receives it and the meeting leaves the queue for the pinned list', async () => {
    const { world } = await start(engine);
    await world.meeting('msg_1');
    // One after the other, so the queue's newest-first order is the order they were matched in.
    await world.momentum.waitFor(1);
    await waitSettled(world.bridge.databaseUrl);
    await world.meeting('msg_2', { id: 'teams-44' });
    await world.momentum.waitFor(2);
    await waitSettled(world.bridge.databaseUrl);
    const first = (await world.get('/admin/matches?outcome=ambiguous&limit=1').expect(200)).body;
    const second = (await world.get(`/admin/matches?outcome=ambiguous&limit=1&cursor=${first.nextCursor}`).expect(200)).body;

    await world.put(`${meetingPath()}/pin`, { opportunityId: TIED_OPPORTUNITIES[1], reason: 'the expansion is this call' }).expect(202);
    const [, , pinnedRemap] = await world.momentum.waitFor(3);
    await waitSettled(world.bridge.databaseUrl);
    const queue = (await world.get('/admin/matches?outcome=ambiguous').expect(200)).body;
    const pinned = (await world.get('/admin/matches?outcome=pinned').expect(200)).body;
    const pinnedDeliveries = (await world.get('/admin/deliveries?match=pinned').expect(200)).body.items;

    expect([...first.items, ...second.items].map((item: { meetingKey: string }) => item.meetingKey)).toEqual([meetingKey('teams-44'), meetingKey()]);
    expect(second.nextCursor).toBeNull();
    expect((pinnedRemap!.body as { salesforceRecords: object }).salesforceRecords).toEqual({ opportunityId: TIED_OPPORTUNITIES[1] });
    expect(queue.items.map((item: { meetingKey: string }) => item.meetingKey)).toEqual([meetingKey('teams-44')]);
    expect(pinned.items).toEqual([expect.objectContaining({ meetingKey: meetingKey(), outcome: 'pinned', records: { opportunityId: TIED_OPPORTUNITIES[1] } })]);
    expect(pinnedDeliveries).toEqual([expect.objectContaining({ salesforceIds: { opportunityId: TIED_OPPORTUNITIES[1] }, state: 'succeeded' })]);
    await expectSettled(world.bridge.databaseUrl);
  });
});
