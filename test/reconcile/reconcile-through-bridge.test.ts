import { expect, it } from 'vitest';

import { openStore } from '../../src/store/open-store.ts';
import { postCalendarEvent, TEAMS_MEETING } from '../calendar/support/signed-events.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { describeEachEngine, expectSettled, queryRows, waitSettled } from '../support/stored-state.ts';
import { ACME, ACME_BUYER, ACME_DEAL, BETA_BUYER, BETA_DEALS, meetingStart, PINNED_DEAL, plusMinutes, reconcileWorld, REP } from './support/reconcile-world.ts';

/*
 * Reconcile through the whole bridge on both engines, against a Salesforce that evaluates the
 * directory's SOQL: the meetings Momentum holds that the bridge never delivered for are matched
 * like calendar meetings, each kept with its match record, and remapped in the lowest class only
 * when the best match differs from what Momentum holds. A pinned meeting, a tie and a meeting the
 * bridge delivered for are left alone.
 */

const cleanups = cleanupAfterEach();

const held = (id: number, start: string, buyer: string, ids: Record<string, string> = {}) => ({
  id,
  title: `Call ${id}`,
  startTime: start,
  endTime: plusMinutes(start, 30),
  host: { email: REP, name: 'Rita Rep' },
  attendees: [
    { email: REP, isInternal: true },
    { email: buyer, isInternal: false },
  ],
  transcript: { entries: [] },
  ...ids,
});

describeEachEngine('reconcile through startBridge', (engine) => {
  it('when Momentum holds a meeting the bridge never saw on the account only, then it is remapped to the matched deal; a pinned one and a tie are untouched', async () => {
    // Arrange: three meetings Momentum recorded; one of them pinned by an operator.
    const world = await reconcileWorld(engine, cleanups);
    const start = meetingStart();
    world.momentum.meetings.hold(
      held(501, start, ACME_BUYER, { salesforceAccountId: ACME }),
      held(502, plusMinutes(start, 60), ACME_BUYER, { salesforceAccountId: ACME }),
      held(503, plusMinutes(start, 120), BETA_BUYER),
    );
    const seed = await openStore(world.database.url, { poolMax: 1 });
    await seed.matches.setPin({
      meetingKey: 'momentum:502',
      records: { opportunityId: PINNED_DEAL },
      pinnedBy: 'ops@example.com',
      reason: 'renewal',
      pinnedAt: Date.now(),
    });
    await seed.close();

    // Act: the first walk starts with the bridge.
    const bridge = await world.start({ reconcile: true });
    const [listing, remap] = await world.momentum.waitFor(2, 15_000);
    await waitSettled(bridge.databaseUrl);

    // Assert: one listing of the last 30 days, one remap by Momentum's id to the deal.
    expect(listing).toMatchObject({ method: 'GET', path: '/v1/meetings', query: { pageNumber: '1', pageSize: '50' } });
    expect(Date.parse(listing!.query.to!) - Date.parse(listing!.query.from!)).toBe(30 * 86_400_000);
    expect(remap).toMatchObject({ method: 'POST', path: '/v1/meeting/remap' });
    expect(remap!.body).toEqual({ meetingDetails: { momentumMeetingId: 501 }, salesforceRecords: { opportunityId: ACME_DEAL, accountId: ACME } });
    expect(world.momentum.requests).toHaveLength(2);
    expect(world.momentum.meetings.meetings.find((meeting) => meeting.id === 501)).toMatchObject({ salesforceOpportunityId: ACME_DEAL });
    // What the bridge stored: each meeting as a momentum event with its decision and match record.
    const events = await queryRows(bridge.databaseUrl, `SELECT dedupe_key, state, state_reason FROM inbound_events WHERE source = 'momentum' ORDER BY id`);
    expect(events).toEqual([
      { dedupe_key: `momentum:501:-:${ACME}`, state: 'mapped', state_reason: null },
      { dedupe_key: `momentum:502:-:${ACME}`, state: 'skipped', state_reason: 'pinned: a reconcile never changes a pinned meeting' },
      {
        dedupe_key: 'momentum:503:-:-',
        state: 'skipped',
        state_reason: expect.stringMatching(/^tie, nothing sent: a reconcile never picks between tied candidates/),
      },
    ]);
    const records = await queryRows(bridge.databaseUrl, 'SELECT meeting_key, outcome, rule, record FROM match_records ORDER BY meeting_key');
    const tied = (JSON.parse(String(records[2]!.record)) as { candidates: Array<{ id: string; status: string }> }).candidates;
    expect(tied.filter((candidate) => candidate.status === 'tied').map((candidate) => candidate.id)).toEqual([...BETA_DEALS]);
    expect(records.map(({ meeting_key, outcome, rule }) => ({ meeting_key, outcome, rule }))).toEqual([
      { meeting_key: 'momentum:501', outcome: 'matched', rule: 'contact_role' },
      { meeting_key: 'momentum:502', outcome: 'pinned', rule: 'pinned' },
      { meeting_key: 'momentum:503', outcome: 'ambiguous', rule: 'ambiguous' },
    ]);
    const jobs = await queryRows(bridge.databaseUrl, `SELECT kind, state, priority, result FROM jobs WHERE kind IN ('reconcile', 'remap') ORDER BY id`);
    expect(jobs.map(({ kind, state, priority }) => ({ kind, state, priority }))).toEqual([
      { kind: 'reconcile', state: 'succeeded', priority: 2 },
      { kind: 'remap', state: 'succeeded', priority: 2 },
    ]);
    expect(JSON.parse(String(jobs[0]!.result))).toMatchObject({ listed: 3, seen: 0, matched: 3, unchanged: 0, pageCount: 1 });
    await expectSettled(bridge.databaseUrl);
  });

  it('when Momentum holds a meeting the bridge delivered for, then a reconcile leaves it alone even where matching would differ', async () => {
    // Arrange: a signed event naming its own deal reaches Momentum through a bridge that does not reconcile.
    const world = await reconcileWorld(engine, cleanups);
    const start = meetingStart(3);
    const first = await world.start({ reconcile: false });
    const event = { ...TEAMS_MEETING, id: 'teams-seen', start, end: plusMinutes(start, 30), organizer: { email: REP }, attendees: [{ email: ACME_BUYER }] };
    expect((await postCalendarEvent(first.url, JSON.stringify({ ...event, salesforce: { opportunityId: PINNED_DEAL } }), { id: 'msg_seen' })).status).toBe(202);
    await world.momentum.waitFor(1);
    await waitSettled(first.databaseUrl);
    await first.stop();
    // Momentum learnt the meeting from its calendar, attendees and all: matched, they would name ACME's deal.
    const [learnt] = world.momentum.meetings.meetings;
    learnt!.attendees = [{ email: ACME_BUYER, isInternal: false }];

    // Act: a bridge that reconciles starts on the same database.
    const second = await world.start({ reconcile: true });
    await world.momentum.waitFor(2);
    await waitSettled(second.databaseUrl);

    // Assert: listed, seen, nothing stored for it, nothing sent.
    expect(world.momentum.requests.map((seen) => `${seen.method} ${seen.path}`)).toEqual(['POST /v1/meeting/remap', 'GET /v1/meetings']);
    expect(await queryRows(second.databaseUrl, `SELECT id FROM inbound_events WHERE source = 'momentum'`)).toEqual([]);
    const [walk] = await queryRows(second.databaseUrl, `SELECT result FROM jobs WHERE kind = 'reconcile'`);
    expect(JSON.parse(String(walk!.result))).toMatchObject({ listed: 1, seen: 1, matched: 0 });
    await expectSettled(second.databaseUrl);
  });
});
