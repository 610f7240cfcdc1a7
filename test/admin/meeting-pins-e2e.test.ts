import { expect, it } from 'vitest';

import { keyFingerprint } from '../../src/admin/api-keys.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import type { Engine } from '../support/real-store.ts';
import { describeEachEngine, expectSettled, waitSettled } from '../support/stored-state.ts';
import { KEY } from './support/admin-app.ts';
import { MEETING_ID, meetingKey, meetingPath, startMatchWorld } from './support/match-bridge.ts';

/*
 * "Why this record?" through the real startBridge wiring and worker, on both engines: the match
 * record a delivery and an event carry, a meeting's page, and an operator's pin, which re-maps the
 * meeting at once and wins over the meeting's own ids at every later mapping.
 */

const NAMED = '0068d0000101XyZAAU';
const PINNED = '0068d0000202XyZAAU';
const OTHER_ACCOUNT = '0018d0000101XyZAAU';
const cleanups = cleanupAfterEach();
const start = (engine: Engine) => startMatchWorld(engine, cleanups);
const opportunityOf = (body: unknown) => (body as { salesforceRecords: { opportunityId?: string } }).salesforceRecords.opportunityId;

describeEachEngine('why this record: match records and pins through startBridge', (engine) => {
  it('when a signed event names its opportunity, then its delivery, its event and its meeting page carry the match record that made the remap', async () => {
    const world = await start(engine);
    await world.meeting('msg_1', { salesforce: { opportunityId: NAMED } });
    await world.momentum.waitFor(1);
    await waitSettled(world.bridge.databaseUrl);

    const [delivery] = (await world.get('/admin/deliveries').expect(200)).body.items;
    const detail = (await world.get(`/admin/deliveries/${delivery.id}`).expect(200)).body;
    const event = (await world.get(`/admin/events/${delivery.eventId}`).expect(200)).body;
    const meeting = (await world.get(meetingPath()).expect(200)).body;

    expect(detail.match).toMatchObject({
      meetingKey: meetingKey(),
      eventId: delivery.eventId,
      outcome: 'matched',
      rule: 'explicit_ids',
      summary: 'The meeting names its Salesforce ids itself',
      records: { opportunityId: NAMED },
      candidates: [],
      tried: [],
    });
    expect(event.match).toEqual(detail.match);
    expect(meeting).toMatchObject({ meetingKey: meetingKey(), title: 'Globex pricing review', start: '2026-03-02T16:00:00Z', pin: null });
    expect(meeting.matches).toEqual([detail.match]);
    expect(meeting.events.map((item: { id: number }) => item.id)).toEqual([delivery.eventId]);
    expect(meeting.deliveries).toEqual([expect.objectContaining({ id: delivery.id, salesforceIds: { opportunityId: NAMED } })]);
    const jobs = await expectSettled(world.bridge.databaseUrl);
    const mapJob = jobs.find((job) => job.kind === 'map-event');
    expect(await world.rows('SELECT event_id, map_job_id, meeting_key, outcome FROM match_records')).toEqual([
      { event_id: delivery.eventId, map_job_id: mapJob!.id, meeting_key: meetingKey(), outcome: 'matched' },
    ]);
  });

  it('when an operator pins the meeting, then Momentum receives the pinned id at once, and a later change naming other ids still maps to the pin', async () => {
    const world = await start(engine);
    await world.meeting('msg_1', { salesforce: { opportunityId: NAMED } });
    await world.momentum.waitFor(1);

    const pinned = await world.put(`${meetingPath()}/pin`, { opportunityId: PINNED.slice(0, 15), reason: 'the renewal, not the pilot' }).expect(202);
    const [, afterPin] = await world.momentum.waitFor(2);
    await world.meeting('msg_2', { title: 'Globex pricing review (moved)', salesforce: { opportunityId: NAMED, accountId: OTHER_ACCOUNT } });
    await waitSettled(world.bridge.databaseUrl);
    const meeting = (await world.get(meetingPath()).expect(200)).body;

    const by = `admin key ${keyFingerprint(KEY)}`;
    expect(pinned.body.pin).toMatchObject({ meetingKey: meetingKey(), records: { opportunityId: PINNED }, pinnedBy: by, reason: 'the renewal, not the pilot' });
    expect(pinned.body.job).toMatchObject({ kind: 'map-event', state: 'pending', eventId: meeting.events[1].id });
    expect(afterPin!.body).toMatchObject({ source: { type: 'MS_TEAMS', id: MEETING_ID }, salesforceRecords: { opportunityId: PINNED } });
    // The change maps to the pinned id again: the same records as the last remap sent, so not re-sent (the unchanged rule).
    expect(world.momentum.requests.map((sent) => opportunityOf(sent.body))).toEqual([NAMED, PINNED]);
    expect(meeting.deliveries[0]).toMatchObject({ state: 'skipped', lastError: 'unchanged', title: 'Globex pricing review (moved)' });
    expect(meeting.deliveries[0].salesforceIds).toEqual({ opportunityId: PINNED });
    expect(meeting.pin).toMatchObject({ records: { opportunityId: PINNED }, pinnedBy: by });
    expect(meeting.matches.map((match: { outcome: string }) => match.outcome)).toEqual(['pinned', 'pinned', 'matched']);
    expect(meeting.matches[0]).toMatchObject({
      rule: 'pinned',
      summary: `Pinned by ${by}: the renewal, not the pilot`,
      pin: { by, reason: 'the renewal, not the pilot' },
    });
    expect(meeting.events).toHaveLength(2);
    expect(meeting.deliveries.map((item: { salesforceIds: { opportunityId: string } }) => item.salesforceIds.opportunityId)).toEqual([PINNED, PINNED, NAMED]);
    const change = world.bridge.logs.lines().find((line) => line.message === 'admin change' && line.action === 'pinMeeting');
    expect(change).toMatchObject({
      keyFingerprint: keyFingerprint(KEY),
      meetingKey: meetingKey(),
      pinned: { opportunityId: PINNED },
      jobId: pinned.body.job.id,
    });
    await expectSettled(world.bridge.databaseUrl);
    expect(await world.rows('SELECT meeting_key, pinned_by FROM meeting_pins')).toEqual([{ meeting_key: meetingKey(), pinned_by: by }]);
  });

  it('when the pin is cleared, then the meeting is mapped by its own ids again at once, and clearing it again is a 404', async () => {
    const world = await start(engine);
    await world.meeting('msg_1', { salesforce: { opportunityId: NAMED } });
    await world.momentum.waitFor(1);
    await world.put(`${meetingPath()}/pin`, { opportunityId: PINNED, reason: 'the renewal' }).expect(202);
    await world.momentum.waitFor(2);

    const cleared = await world.delete(`${meetingPath()}/pin`);
    const [, , afterClear] = await world.momentum.waitFor(3);
    await waitSettled(world.bridge.databaseUrl);
    const again = await world.delete(`${meetingPath()}/pin`);
    const meeting = (await world.get(meetingPath()).expect(200)).body;

    expect(cleared.status).toBe(204);
    expect(opportunityOf(afterClear!.body)).toBe(NAMED);
    expect(again.status).toBe(404);
    expect(again.body.error).toMatchObject({ code: 'not_found', message: `meeting ${meetingKey()} has no pin` });
    expect(meeting.pin).toBeNull();
    expect(meeting.matches.map((match: { outcome: string }) => match.outcome)).toEqual(['matched', 'pinned', 'matched']);
    await expectSettled(world.bridge.databaseUrl);
    expect(await world.rows('SELECT meeting_key FROM meeting_pins')).toEqual([]);
  });

  it('when an event of a pinned meeting is reprocessed, then the mapping keeps the pin: nothing else reaches Momentum', async () => {
    const world = await start(engine);
    await world.meeting('msg_1', { salesforce: { opportunityId: NAMED } });
    await world.momentum.waitFor(1);
    await world.put(`${meetingPath()}/pin`, { opportunityId: PINNED, reason: 'the renewal' }).expect(202);
    await world.momentum.waitFor(2);
    await waitSettled(world.bridge.databaseUrl);
    const eventId = (await world.get(meetingPath()).expect(200)).body.events[0].id;

    const reprocessed = await world.post(`/admin/events/${eventId}/reprocess`).expect(202);
    await waitSettled(world.bridge.databaseUrl);
    const meeting = (await world.get(meetingPath()).expect(200)).body;

    // The same pinned remap as the last one sent: skipped as unchanged, where the event's own id would have gone out.
    expect(world.momentum.requests.map((sent) => opportunityOf(sent.body))).toEqual([NAMED, PINNED]);
    expect(meeting.matches.map((match: { outcome: string }) => match.outcome)).toEqual(['pinned', 'pinned', 'matched']);
    expect(meeting.deliveries[0]).toMatchObject({ state: 'skipped', lastError: 'unchanged', salesforceIds: { opportunityId: PINNED } });
    const jobs = await expectSettled(world.bridge.databaseUrl);
    expect(jobs.find((job) => job.id === reprocessed.body.job.id)).toMatchObject({ kind: 'map-event', state: 'succeeded' });
  });

  it('when a pin names no meeting, the wrong kind of id or no reason, or the queue an unknown outcome, then a precise 4xx and nothing is stored or sent', async () => {
    const world = await start(engine);
    await world.meeting('msg_1', { salesforce: { opportunityId: NAMED } });
    await world.momentum.waitFor(1);
    await waitSettled(world.bridge.databaseUrl);

    const unknown = await world.put(`${meetingPath('teams-99')}/pin`, { opportunityId: PINNED, reason: 'the renewal' });
    const wrongKind = await world.put(`${meetingPath()}/pin`, { opportunityId: OTHER_ACCOUNT, reason: 'the renewal' });
    const noReason = await world.put(`${meetingPath()}/pin`, { leadId: '00Q8d0000101XyZ' });
    const noMeeting = await world.get(meetingPath('teams-99'));
    const badOutcome = await world.get('/admin/matches?outcome=maybe');
    const badFilter = await world.get('/admin/deliveries?match=maybe');

    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toBe(`no inbound event belongs to meeting ${meetingKey('teams-99')}`);
    expect(wrongKind.status).toBe(400);
    expect(wrongKind.body.error.details).toEqual([{ path: 'opportunityId', message: 'expected an Opportunity id (prefix 006)' }]);
    expect(noReason.status).toBe(400);
    expect(noReason.body.error.details).toEqual([{ path: 'reason', message: 'reason is required: say why this record' }]);
    expect(noMeeting.status).toBe(404);
    expect(badOutcome.status).toBe(400);
    expect(badOutcome.body.error.details).toEqual([{ path: 'outcome', message: 'outcome must be one of matched, ambiguous, none, pinned' }]);
    expect(badFilter.status).toBe(400);
    expect(await world.rows('SELECT meeting_key FROM meeting_pins')).toEqual([]);
    expect(world.momentum.requests).toHaveLength(1);
    const jobs = await expectSettled(world.bridge.databaseUrl);
    expect(jobs.map((job) => job.kind)).toEqual(['map-event', 'remap']);
  });
});
