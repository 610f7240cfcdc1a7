import { describe, expect, it } from 'vitest';

import { KEY, payload, useRemapHandlerWorld } from './support/remap-handler-world.ts';
import { enqueueAndClaim, recordSucceeded } from './support/stored-jobs.ts';

describe('createRemapHandler', () => {
  const world = useRemapHandlerWorld();
  const { setup } = world;

  it('when the last succeeded remap of the meeting had the same body and flags, then it is skipped as unchanged and nothing is sent', async () => {
    const reordered = {
      flags: { triggerAiSignals: false, triggerSummary: true },
      request: { salesforceRecords: payload.request.salesforceRecords, source: payload.request.source },
    };
    const earlier = await recordSucceeded(world.realStore, 'remap', reordered, KEY);
    const { handler, store, context } = setup();
    const job = await enqueueAndClaim(world.realStore, 'remap', payload, KEY);

    const result = await handler(job, context);

    expect(result).toMatchObject({ kind: 'final', state: 'skipped', reason: 'unchanged', result: { sameAs: earlier.id } });
    expect(result.attempt).toBeUndefined();
    expect(store.lookups).toEqual([`remap:${KEY}`]);
    expect(world.fake.requests).toHaveLength(0);
    expect(result.calledUpstream).toBeUndefined();
  });

  it('when the flags or the ids differ from the last succeeded remap, then it is sent', async () => {
    const otherFlags = { ...payload, flags: { triggerSummary: false, triggerAiSignals: false } };
    const otherIds = { ...payload, request: { ...payload.request, salesforceRecords: { accountId: '0015w00002ABCDEAAA' } } };
    await recordSucceeded(world.realStore, 'remap', otherFlags, KEY);
    const { handler, context } = setup();

    const firstJob = await enqueueAndClaim(world.realStore, 'remap', payload, KEY);
    const first = await handler(firstJob, context);
    await world.realStore.finish({ jobId: firstJob.id, leaseOwner: 'test-worker', outcome: { state: 'succeeded' } });
    // The ids changed since the last accepted remap of this meeting: sent again.
    const second = await handler(await enqueueAndClaim(world.realStore, 'remap', otherIds, KEY), context);

    expect([first.kind, second.kind]).toEqual(['succeeded', 'succeeded']);
    expect(world.fake.requests.map((seen) => seen.body)).toEqual([payload.request, otherIds.request]);
  });

  it('when only the meeting details changed but the ids and flags did not, then it is skipped as unchanged', async () => {
    const retitled = { ...payload, request: { ...payload.request, meetingDetails: { title: 'A new title' } } };
    const earlier = await recordSucceeded(world.realStore, 'remap', payload, KEY);
    const { handler, context } = setup();

    const result = await handler(await enqueueAndClaim(world.realStore, 'remap', retitled, KEY), context);

    expect(result).toMatchObject({ kind: 'final', state: 'skipped', reason: 'unchanged', result: { sameAs: earlier.id } });
    expect(world.fake.requests).toHaveLength(0);
  });

  it('when a remap names its meeting by its details and only the start moved, then it is sent with the new start; named by its source, the same move is unchanged', async () => {
    const details = { title: 'Globex QBR', startTime: '2026-03-02T16:00:00Z', hostEmail: 'ana.rep@example.com' };
    const byDetails = { ...payload, request: { salesforceRecords: payload.request.salesforceRecords, meetingDetails: details } };
    const movedByDetails = { ...byDetails, request: { ...byDetails.request, meetingDetails: { ...details, startTime: '2026-03-02T17:00:00Z' } } };
    const bySource = { ...payload, request: { ...payload.request, meetingDetails: details } };
    const movedBySource = { ...payload, request: { ...payload.request, meetingDetails: { ...details, startTime: '2026-03-02T17:00:00Z' } } };
    // One meeting key for each pair, as remaps mapped from one known meeting share one (meeting-id:<n>).
    await recordSucceeded(world.realStore, 'remap', byDetails, 'meeting-id:1');
    const earlierBySource = await recordSucceeded(world.realStore, 'remap', bySource, 'meeting-id:2');
    const { handler, context } = setup();

    const moved = await handler(await enqueueAndClaim(world.realStore, 'remap', movedByDetails, 'meeting-id:1'), context);
    const kept = await handler(await enqueueAndClaim(world.realStore, 'remap', movedBySource, 'meeting-id:2'), context);

    expect(moved.kind).toBe('succeeded');
    expect(world.fake.requests.map((seen) => seen.body)).toEqual([movedByDetails.request]);
    expect(kept).toMatchObject({ kind: 'final', state: 'skipped', reason: 'unchanged', result: { sameAs: earlierBySource.id } });
  });

  it('when the job is a replay, then it is sent even though it is unchanged', async () => {
    const earlier = await recordSucceeded(world.realStore, 'remap', payload, KEY);
    const { handler, store, context } = setup();
    const [replay] = await world.realStore.enqueue([{ kind: 'remap', payload: { ...payload, replay: true }, coalesceKey: KEY, replayOf: earlier.id }]);
    const [job] = await world.realStore.claim({ owner: 'test-worker', limit: 1, leaseMs: 60_000 });

    expect(job?.id).toBe(replay?.id);
    const result = await handler(job!, context);

    expect(result.kind).toBe('succeeded');
    expect(store.lookups).toEqual([]);
    expect(world.fake.requests).toHaveLength(1);
    expect(world.fake.requests[0]!.body).toEqual(payload.request);
  });
});
