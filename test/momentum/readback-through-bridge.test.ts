import { expect, it } from 'vitest';

import { cleanupAfterEach } from '../support/cleanups.ts';
import { describeEachEngine, expectSettled, waitSettled } from '../support/stored-state.ts';
import { HOST, OTHER_OPPORTUNITY, SENT_OPPORTUNITY, startReadbackWorld } from './support/readback-world.ts';

/*
 * Read-back through the whole bridge on both engines: after Momentum accepts a remap, the bridge
 * reads its meeting listing back and says whether Momentum holds what was sent, on the delivery
 * in the admin API, in the stored row, in the metrics and in the log.
 */

const cleanups = cleanupAfterEach();
const START = '2026-03-02T16:00:00.000Z';

const metricValue = (text: string, outcome: string): number | undefined => {
  const line = text.split('\n').find((row) => row.startsWith(`bridge_readback_total{outcome="${outcome}"}`));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
};

describeEachEngine('read-back from Momentum through startBridge', (engine) => {
  it('when a remap succeeds and Momentum lists the meeting with the ids sent, then the delivery is confirmed', async () => {
    // Arrange
    const world = await startReadbackWorld(engine, cleanups);

    // Act
    await world.meeting('msg_confirm');
    await world.readBack(1);
    await waitSettled(world.bridge.databaseUrl);

    // Assert: Momentum got the remap, then one listing of the meeting's hour (to three hours later: meetings end in it).
    const [remap, listing, ...rest] = world.momentum.requests;
    expect(rest).toEqual([]);
    expect(remap).toMatchObject({ method: 'POST', path: '/v1/meeting/remap', body: { salesforceRecords: { opportunityId: SENT_OPPORTUNITY } } });
    expect(listing).toMatchObject({
      method: 'GET',
      path: '/v1/meetings',
      query: { from: START, to: '2026-03-02T20:00:00.000Z', pageNumber: '1', pageSize: '50' },
    });
    const [row] = await world.rows('SELECT kind, meeting_key, starts_at, host, readback_outcome, held FROM delivered_meetings');
    expect(row).toMatchObject({ kind: 'remap', starts_at: Date.parse(START), host: HOST, readback_outcome: 'confirmed' });
    expect(JSON.parse(String(row!.held))).toEqual({ momentumMeetingId: '9001', opportunityId: SENT_OPPORTUNITY });
    const [delivery] = (await world.get('/admin/deliveries').expect(200)).body.items as Array<{ id: number; readback: string }>;
    expect(delivery?.readback).toBe('confirmed');
    const detail = (await world.get(`/admin/deliveries/${delivery!.id}`).expect(200)).body as { readback: Record<string, unknown> };
    expect(detail.readback).toMatchObject({ state: 'confirmed', flag: null, sent: { opportunityId: SENT_OPPORTUNITY } });
    expect(metricValue(await (await fetch(`${world.bridge.url}/metrics`)).text(), 'confirmed')).toBe(1);
    const jobs = await expectSettled(world.bridge.databaseUrl);
    expect(jobs.map((job) => [job.kind, job.state])).toEqual([
      ['map-event', 'succeeded'],
      ['remap', 'succeeded'],
      ['readback', 'succeeded'],
    ]);
  });

  it('when Momentum accepted the remap but lists another opportunity, then the delivery is flagged "accepted but not applied", counted and logged', async () => {
    // Arrange: Momentum holds the meeting on another deal and will not apply the remap.
    const world = await startReadbackWorld(engine, cleanups);
    world.momentum.meetings.hold({
      id: 4711,
      title: 'Globex pricing review',
      startTime: START,
      host: { email: HOST },
      salesforceOpportunityId: OTHER_OPPORTUNITY,
    });
    world.momentum.meetings.applyRemaps(false);

    // Act
    await world.meeting('msg_not_applied');
    await world.readBack(1);
    await waitSettled(world.bridge.databaseUrl);

    // Assert: the admin API shows the flag on the row and the detail.
    const [delivery] = (await world.get('/admin/deliveries').expect(200)).body.items as Array<{ id: number; readback: string; state: string }>;
    expect(delivery).toMatchObject({ state: 'succeeded', readback: 'not_applied' });
    const detail = (await world.get(`/admin/deliveries/${delivery!.id}`).expect(200)).body as { readback: Record<string, unknown> };
    expect(detail.readback).toEqual({
      state: 'not_applied',
      flag: 'accepted but not applied',
      dueAt: expect.any(String),
      checkedAt: expect.any(String),
      sent: { opportunityId: SENT_OPPORTUNITY },
      held: { momentumMeetingId: '4711', opportunityId: OTHER_OPPORTUNITY },
    });
    // The stored row, the metric and the log say the same.
    expect(await world.rows('SELECT job_id, readback_outcome FROM delivered_meetings')).toEqual([{ job_id: delivery!.id, readback_outcome: 'not_applied' }]);
    const metrics = await (await fetch(`${world.bridge.url}/metrics`)).text();
    expect([metricValue(metrics, 'not_applied'), metricValue(metrics, 'confirmed')]).toEqual([1, undefined]);
    expect(world.bridge.logs.lines().filter((line) => line.message === 'remap accepted but not applied')).toEqual([
      expect.objectContaining({ level: 'warn', deliveryId: delivery!.id, held: { momentumMeetingId: '4711', opportunityId: OTHER_OPPORTUNITY } }),
    ]);
    await expectSettled(world.bridge.databaseUrl);
  });

  it('when the remapped meeting is in no page of the listing, then every page is read and the delivery is not_found, not flagged', async () => {
    // Arrange: 51 other meetings in the hour, none of them this one: two pages.
    const world = await startReadbackWorld(engine, cleanups);
    world.momentum.meetings.learnFromRemaps(false);
    world.momentum.meetings.hold(...Array.from({ length: 51 }, (_, n) => ({ title: `Other ${n}`, startTime: START, host: { email: 'bob@example.com' } })));

    // Act
    await world.meeting('msg_not_found');
    await world.readBack(1);
    await waitSettled(world.bridge.databaseUrl);

    // Assert
    const listings = world.momentum.requests.filter((seen) => seen.method === 'GET');
    expect(listings.map((seen) => seen.query.pageNumber)).toEqual(['1', '2']);
    expect(await world.rows('SELECT readback_outcome FROM delivered_meetings')).toEqual([{ readback_outcome: 'not_found' }]);
    const [delivery] = (await world.get('/admin/deliveries').expect(200)).body.items as Array<{ id: number }>;
    expect((await world.get(`/admin/deliveries/${delivery!.id}`).expect(200)).body.readback).toMatchObject({ state: 'not_found', flag: null, held: null });
    await expectSettled(world.bridge.databaseUrl);
  });

  it('when three meetings of one hour are remapped together, then one listing reads all three back', async () => {
    // Arrange
    // A delay longer than the three remaps take: the window is read once the newest is due.
    const world = await startReadbackWorld(engine, cleanups, { MOMENTUM_READBACK_DELAY: '1500ms' });

    // Act
    for (const [n, start] of ['2026-03-02T16:00:00Z', '2026-03-02T16:20:00Z', '2026-03-02T16:40:00Z'].entries()) {
      await world.meeting(`msg_batch_${n}`, { id: `teams-${n}`, start, end: start.replace(':00Z', ':30Z') });
    }
    await world.readBack(3);
    await waitSettled(world.bridge.databaseUrl);

    // Assert
    expect(world.momentum.requests.filter((seen) => seen.method === 'GET')).toHaveLength(1);
    expect(await world.rows('SELECT readback_outcome FROM delivered_meetings')).toEqual(Array(3).fill({ readback_outcome: 'confirmed' }));
    await expectSettled(world.bridge.databaseUrl);
  });
});
