import request from 'supertest';
import { afterEach, expect, it } from 'vitest';

import { type EngineApp, startEngineApp } from '../support/app-harness.ts';
import { describeEachEngine, queryRows } from '../support/stored-state.ts';
import { diedAfter, mapped, receiveEvent, zoomRecording } from './support/meeting-seed.ts';

const KEY = 'admin-key-0123456789abcdef';
const MEETING_KEY = 'zoom:zoom:timeline-uuid';
let harness: EngineApp | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describeEachEngine('GET /admin/meetings/:key timeline, and the meeting of GET /admin/deliveries/:id', (engine) => {
  const start = async () => (harness = await startEngineApp(engine, { env: { ADMIN_API_KEYS: KEY } }));
  const get = (path: string) => request(harness!.app).get(path).set('Authorization', `Bearer ${KEY}`);

  /** A recording received, matched and imported, the import dead after two attempts, replayed, and the meeting pinned. */
  async function meetingWithHistory() {
    const { store } = harness!;
    const received = await receiveEvent(
      store,
      'zoom',
      MEETING_KEY,
      zoomRecording('timeline-uuid', { title: 'Design review', start: '2026-04-01T09:00:00Z' }),
      Date.now() - 60_000,
    );
    const created = await mapped(
      store,
      received,
      { kind: 'import', payload: { request: { meeting: { id: 'timeline-uuid', title: 'Design review' } } }, coalesceKey: 'import:timeline-uuid' },
      { opportunityId: '0065w000023STAmAAO' },
    );
    const dead = await diedAfter(store, created, [
      { startedAt: created.createdAt + 1, durationMs: 30, status: 503, errorClass: 'http_5xx', responseExcerpt: 'unavailable' },
      { startedAt: created.createdAt + 2, durationMs: 25, status: 404, errorClass: 'rejected', responseExcerpt: 'meeting not found' },
    ]);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const [replayed] = await store.enqueueReplays(
      [
        {
          kind: 'import',
          payload: dead.payload,
          replayOf: dead.id,
          eventId: received.event.id,
          coalesceKey: 'import:timeline-uuid',
          runAt: Date.now() + 3_600_000,
        },
      ],
      'activeReplay',
    );
    await store.matches.setPin({
      meetingKey: MEETING_KEY,
      records: { opportunityId: '0065w000023STAmAAO' },
      pinnedBy: 'key:abcd',
      reason: 'the customer said so',
      pinnedAt: Date.now() + 60_000,
    });
    return { received, dead, replay: 'created' in replayed! ? replayed.created : undefined };
  }

  it('when a meeting has events, a match record, a delivery with attempts, a replay and a pin, then its timeline lists each newest first, typed', async () => {
    await start();
    const { received, dead, replay } = await meetingWithHistory();

    const answer = await get(`/admin/meetings/${encodeURIComponent(MEETING_KEY)}`);

    expect(answer.status).toBe(200);
    // The store numbers deliveries 1, 2, … in the order made: the timeline's numbers are those.
    expect([dead.deliveryNo, replay!.deliveryNo]).toEqual([1, 2]);
    expect(answer.body).toMatchObject({ meetingKey: MEETING_KEY, title: 'Design review', start: '2026-04-01T09:00:00Z', timelineFrom: null });
    const timeline = answer.body.timeline as Array<{ type: string; at: string }>;
    expect(timeline.map((entry) => entry.type)).toEqual(['pin', 'replay', 'attempt', 'attempt', 'delivery', 'match', 'event']);
    const times = timeline.map((entry) => Date.parse(entry.at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(timeline).toEqual([
      { type: 'pin', at: expect.any(String), records: { opportunityId: '0065w000023STAmAAO' }, pinnedBy: 'key:abcd', reason: 'the customer said so' },
      expect.objectContaining({ type: 'replay', deliveryId: replay!.id, number: replay!.deliveryNo, replayOf: dead.id, state: 'pending' }),
      expect.objectContaining({
        type: 'attempt',
        deliveryId: dead.id,
        number: dead.deliveryNo,
        status: 404,
        errorClass: 'rejected',
        error: 'meeting not found',
      }),
      expect.objectContaining({ type: 'attempt', deliveryId: dead.id, status: 503 }),
      expect.objectContaining({ type: 'delivery', deliveryId: dead.id, number: dead.deliveryNo, kind: 'import', state: 'dead', eventId: received.event.id }),
      expect.objectContaining({ type: 'match', eventId: received.event.id, outcome: 'matched', rule: 'explicit_ids' }),
      {
        type: 'event',
        at: new Date(received.event.receivedAt).toISOString(),
        eventId: received.event.id,
        source: 'zoom',
        state: 'mapped',
        reason: null,
        title: 'Design review',
      },
    ]);
    // Everything the timeline shows is what the store holds for the meeting.
    const [attempts] = await queryRows(harness!.url, 'SELECT COUNT(*) AS n FROM attempts WHERE job_id = $1', [dead.id]);
    expect(attempts!.n).toBe(2);
  });

  it('when a delivery of the meeting is read, then it names its meeting key and title and, an import dead after a 404, advises replaying later', async () => {
    await start();
    const { dead, replay } = await meetingWithHistory();

    const deadAnswer = await get(`/admin/deliveries/${dead.id}`);
    const replayAnswer = await get(`/admin/deliveries/${replay!.id}`);

    expect(deadAnswer.body).toMatchObject({
      meetingKey: MEETING_KEY,
      meetingTitle: 'Design review',
      delivery: { id: dead.id, number: dead.deliveryNo },
      action: { class: 'not_in_momentum', status: 404, button: 'replay' },
    });
    expect(replayAnswer.body).toMatchObject({ meetingKey: MEETING_KEY, meetingTitle: 'Design review', action: null });
    const page = await get(`/admin/meetings/${encodeURIComponent(deadAnswer.body.meetingKey)}`);
    expect(page.status).toBe(200);
  });

  it('when a manual delivery (no event) is read, then its meeting key is null and its title is the request’s', async () => {
    await start();

    const created = await request(harness!.app)
      .post('/admin/meetings/import')
      .set('Authorization', `Bearer ${KEY}`)
      .send({ meeting: { id: 'manual-1', title: 'Hand-made import' }, processImportedMeeting: true });
    const answer = await get(`/admin/deliveries/${created.body.delivery.id}`);

    expect(answer.body).toMatchObject({ meetingKey: null, meetingTitle: 'Hand-made import', action: null });
  });
});
