import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';

import { type FakeMomentum, replies, startFakeMomentum } from '../fakes/fake-momentum.ts';
import type { TestBridge } from '../support/test-bridge.ts';
import { waitFor } from '../support/wait-for.ts';
import { KEY } from './support/admin-app.ts';
import { MOMENTUM_KEY, startAdminBridge } from './support/admin-bridge.ts';

const remapBody = { source: { id: 'evt-outage', type: 'GOOGLE_CALENDAR' }, salesforceRecords: { opportunityId: '0065w000023STAmAAO' } };

describe('replaying a dead delivery through a real worker', () => {
  let momentum: FakeMomentum | undefined;
  let bridge: TestBridge | undefined;
  afterEach(async () => {
    await bridge?.stop();
    await momentum?.close();
    bridge = undefined;
    momentum = undefined;
  });

  const admin = () => ({
    get: (path: string) => request(bridge!.url).get(path).set('Authorization', `Bearer ${KEY}`),
    post: (path: string, body?: object) => request(bridge!.url).post(path).set('X-API-Key', KEY).send(body),
  });
  const stateOf = async (id: number) => (await (await bridge!.store()).getJob(id))?.state;
  /** The Momentum budget as the bridge's pacer sees it (GET /admin/stats). */
  const budget = async () => (await admin().get('/admin/stats').expect(200)).body.rateLimit as { used: number } | null;

  it('when Momentum was down until the delivery died and then recovers, then the replay reaches Momentum with the same body and succeeds', async () => {
    momentum = await startFakeMomentum();
    let down = true;
    momentum.script(() => (down ? replies.serverError(503) : replies.accept('momentum-req-42')));
    bridge = await startAdminBridge({ momentum, retrySchedule: [0, 20] });
    const queued = await admin().post('/admin/meetings/remap?triggerAiSignals=true', remapBody).expect(202);
    const originalId: number = queued.body.delivery.id;
    await waitFor('the delivery to go dead', async () => (await stateOf(originalId)) === 'dead');
    const callsWhileDown = momentum.requests.length;

    down = false;
    const replayed = await admin().post(`/admin/deliveries/${originalId}/replay`).expect(202);
    const replayId: number = replayed.body.delivery.id;
    await waitFor('the replay to succeed', async () => (await stateOf(replayId)) === 'succeeded');

    expect(callsWhileDown).toBe(2);
    expect(momentum.requests).toHaveLength(3);
    const [first, , third] = momentum.requests;
    expect(third!.path).toBe('/v1/meeting/remap');
    expect(third!.body).toEqual(remapBody);
    expect(third!.query).toEqual(first!.query);
    expect(third!.query.triggerAiSignals).toBe('true');
    expect(third!.headers['x-api-key']).toBe(MOMENTUM_KEY);
    const detail = await admin().get(`/admin/deliveries/${replayId}`).expect(200);
    expect(detail.body.delivery).toMatchObject({ state: 'succeeded', replay: true, replayOf: originalId });
    expect(detail.body.attempts).toEqual([expect.objectContaining({ status: 200, upstreamRequestId: 'momentum-req-42' })]);
    const original = await admin().get(`/admin/deliveries/${originalId}`).expect(200);
    expect(original.body.delivery.state).toBe('dead');
    expect(original.body.attempts.map((attempt: { status: number }) => attempt.status)).toEqual([503, 503]);
    expect(original.body.replays.map((item: { id: number }) => item.id)).toEqual([replayId]);
  });

  it('when a delivery Momentum accepted is replayed, then it is sent again although an identical remap would be skipped as unchanged', async () => {
    momentum = await startFakeMomentum();
    bridge = await startAdminBridge({ momentum, retrySchedule: [0] });
    const firstId: number = (await admin().post('/admin/meetings/remap', remapBody).expect(202)).body.delivery.id;
    await waitFor('the first remap to succeed', async () => (await stateOf(firstId)) === 'succeeded');
    const sameId: number = (await admin().post('/admin/meetings/remap', remapBody).expect(202)).body.delivery.id;
    await waitFor('the identical remap to finish', async () => (await stateOf(sameId)) === 'skipped');
    const callsBefore = momentum.requests.length;

    const replayId: number = (await admin().post(`/admin/deliveries/${firstId}/replay`).expect(202)).body.delivery.id;
    await waitFor('the replay to succeed', async () => (await stateOf(replayId)) === 'succeeded');

    expect(callsBefore).toBe(1);
    expect((await (await bridge.store()).getJob(sameId))?.lastError).toBe('unchanged');
    expect(momentum.requests).toHaveLength(2);
    expect(momentum.requests[1]!.body).toEqual(remapBody);
  });

  it('when dead deliveries are replayed in bulk after the outage, then each reaches Momentum once, paced through the same bucket', async () => {
    momentum = await startFakeMomentum();
    let down = true;
    momentum.script(() => (down ? replies.serverError(502) : replies.accept()));
    bridge = await startAdminBridge({ momentum, retrySchedule: [0] });
    const ids: number[] = [];
    for (const id of ['m-1', 'm-2', 'm-3'])
      ids.push(
        (
          await admin()
            .post('/admin/meetings/remap', { ...remapBody, source: { id, type: 'GOOGLE_CALENDAR' } })
            .expect(202)
        ).body.delivery.id,
      );
    await waitFor('all three to go dead', async () => (await Promise.all(ids.map(stateOf))).every((state) => state === 'dead'));
    const bucketBefore = await budget();

    down = false;
    const bulk = await admin()
      .post('/admin/deliveries/replay', { filter: { state: 'dead' }, dryRun: false })
      .expect(200);
    const replays = await (
      await bridge.store()
    ).listJobs({
      limit: 10,
      order: 'oldest',
      notReplayed: true,
      kinds: ['remap'],
      states: ['pending', 'running', 'succeeded'],
    });
    await waitFor('the replays to succeed', async () => (await Promise.all(replays.map((job) => stateOf(job.id)))).every((state) => state === 'succeeded'));

    expect(bulk.body).toMatchObject({ matched: 3, replayed: 3, capped: false });
    expect(replays.map((job) => job.replayOf)).toEqual(ids);
    expect(
      momentum.requests
        .slice(3)
        .map((call) => (call.body as typeof remapBody).source.id)
        .sort(),
    ).toEqual(['m-1', 'm-2', 'm-3']);
    expect(momentum.requests).toHaveLength(6);
    const bucketAfter = await budget();
    expect(bucketAfter!.used).toBe(bucketBefore!.used + 3);
  });
});
