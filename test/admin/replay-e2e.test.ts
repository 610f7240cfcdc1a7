import request from 'supertest';
import { expect, it } from 'vitest';

import { type FakeMomentum, replies, startFakeMomentum } from '../fakes/fake-momentum.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { type Engine, testDatabase } from '../support/real-store.ts';
import { describeEachEngine, expectSettled, storedJobStates } from '../support/stored-state.ts';
import { waitFor } from '../support/wait-for.ts';
import { KEY } from './support/admin-app.ts';
import { MOMENTUM_KEY, startAdminBridge } from './support/admin-bridge.ts';

/*
 * Replays through the real startBridge wiring and worker, on both engines: what reached the fake
 * Momentum, what the admin API answers, and the jobs the bridge left in its database.
 */

const remapBody = { source: { id: 'evt-outage', type: 'GOOGLE_CALENDAR' }, salesforceRecords: { opportunityId: '0065w000023STAmAAO' } };

const cleanups = cleanupAfterEach();

/** A fake Momentum answering as `script` says, and the whole bridge forwarding to it on a database of `engine`. */
async function start(engine: Engine, options: { retrySchedule: number[]; script?: Parameters<FakeMomentum['script']>[0] }) {
  const momentum = await startFakeMomentum();
  if (options.script) momentum.script(options.script);
  const database = testDatabase(engine, 'replay-e2e');
  cleanups.push(momentum.close, database.drop);
  const bridge = await startAdminBridge({ momentum, retrySchedule: options.retrySchedule, database });
  cleanups.push(bridge.stop);
  const admin = {
    get: (path: string) => request(bridge.url).get(path).set('Authorization', `Bearer ${KEY}`),
    post: (path: string, body?: object) => request(bridge.url).post(path).set('X-API-Key', KEY).send(body),
  };
  const stateOf = async (id: number) => (await (await bridge.store()).getJob(id))?.state;
  /** The Momentum budget as the bridge's pacer sees it (GET /admin/stats). */
  const budget = async () => (await admin.get('/admin/stats').expect(200)).body.rateLimit as { used: number } | null;
  return { momentum, bridge, admin, stateOf, budget };
}

describeEachEngine('replaying a dead delivery through a real worker', (engine: Engine) => {
  it('when Momentum was down until the delivery died and then recovers, then the replay reaches Momentum with the same body and succeeds', async () => {
    let down = true;
    const { momentum, bridge, admin, stateOf } = await start(engine, {
      retrySchedule: [0, 20],
      script: () => (down ? replies.serverError(503) : replies.accept('momentum-req-42')),
    });
    const queued = await admin.post('/admin/meetings/remap?triggerAiSignals=true', remapBody).expect(202);
    const originalId: number = queued.body.delivery.id;
    await waitFor('the delivery to go dead', async () => (await stateOf(originalId)) === 'dead');
    const callsWhileDown = momentum.requests.length;

    down = false;
    const replayed = await admin.post(`/admin/deliveries/${originalId}/replay`).expect(202);
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
    const detail = await admin.get(`/admin/deliveries/${replayId}`).expect(200);
    expect(detail.body.delivery).toMatchObject({ state: 'succeeded', replay: true, replayOf: originalId });
    expect(detail.body.attempts).toEqual([expect.objectContaining({ status: 200, upstreamRequestId: 'momentum-req-42' })]);
    const original = await admin.get(`/admin/deliveries/${originalId}`).expect(200);
    expect(original.body.delivery.state).toBe('dead');
    expect(original.body.attempts.map((attempt: { status: number }) => attempt.status)).toEqual([503, 503]);
    expect(original.body.replays.map((item: { id: number }) => item.id)).toEqual([replayId]);
    // Stored: the original dead after its two attempts (the outage provoked it), the replay succeeded at once.
    await expectSettled(bridge.databaseUrl, { deadKinds: ['remap'], retriedKinds: ['remap'] });
    expect(await storedJobStates(bridge.databaseUrl)).toEqual([
      { id: originalId, kind: 'remap', state: 'dead', attempts: 2, reason: expect.stringContaining('503') },
      { id: replayId, kind: 'remap', state: 'succeeded', attempts: 1, reason: null },
    ]);
  });

  it('when a delivery Momentum accepted is replayed, then it is sent again although an identical remap would be skipped as unchanged', async () => {
    const { momentum, bridge, admin, stateOf } = await start(engine, { retrySchedule: [0] });
    const firstId: number = (await admin.post('/admin/meetings/remap', remapBody).expect(202)).body.delivery.id;
    await waitFor('the first remap to succeed', async () => (await stateOf(firstId)) === 'succeeded');
    const sameId: number = (await admin.post('/admin/meetings/remap', remapBody).expect(202)).body.delivery.id;
    await waitFor('the identical remap to finish', async () => (await stateOf(sameId)) === 'skipped');
    const callsBefore = momentum.requests.length;

    const replayId: number = (await admin.post(`/admin/deliveries/${firstId}/replay`).expect(202)).body.delivery.id;
    await waitFor('the replay to succeed', async () => (await stateOf(replayId)) === 'succeeded');

    expect(callsBefore).toBe(1);
    expect((await (await bridge.store()).getJob(sameId))?.lastError).toBe('unchanged');
    expect(momentum.requests).toHaveLength(2);
    expect(momentum.requests[1]!.body).toEqual(remapBody);
    const jobs = await expectSettled(bridge.databaseUrl);
    expect(jobs.map((job) => [job.id, job.state, job.reason])).toEqual([
      [firstId, 'succeeded', null],
      [sameId, 'skipped', 'unchanged'],
      [replayId, 'succeeded', null],
    ]);
  });

  it('when dead deliveries are replayed in bulk after the outage, then each reaches Momentum once, paced through the same bucket', async () => {
    let down = true;
    const { momentum, bridge, admin, stateOf, budget } = await start(engine, {
      retrySchedule: [0],
      script: () => (down ? replies.serverError(502) : replies.accept()),
    });
    const ids: number[] = [];
    for (const id of ['m-1', 'm-2', 'm-3'])
      ids.push((await admin.post('/admin/meetings/remap', { ...remapBody, source: { id, type: 'GOOGLE_CALENDAR' } }).expect(202)).body.delivery.id);
    await waitFor('all three to go dead', async () => (await Promise.all(ids.map(stateOf))).every((state) => state === 'dead'));
    const bucketBefore = await budget();

    down = false;
    const bulk = await admin.post('/admin/deliveries/replay', { filter: { state: 'dead' }, dryRun: false }).expect(200);
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
    // Stored: the three originals dead after their one attempt, each with one replay that succeeded.
    const jobs = await expectSettled(bridge.databaseUrl, { deadKinds: ['remap'] });
    expect(jobs.filter((job) => job.state === 'dead').map((job) => [job.id, job.attempts])).toEqual(ids.map((id) => [id, 1]));
    expect(jobs.filter((job) => job.state === 'succeeded').map((job) => job.id)).toEqual(replays.map((job) => job.id));
    expect(jobs).toHaveLength(6);
  });
});
