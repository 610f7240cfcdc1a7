import { expect, it } from 'vitest';

import { cleanupAfterEach } from '../support/cleanups.ts';
import { pacingFigures } from '../support/pacing-figures.ts';
import { describeEachEngine, expectSettled, waitSettled } from '../support/stored-state.ts';
import { startReadbackWorld } from './support/readback-world.ts';

/*
 * Read-backs draw from the same per-key budget as remaps (Momentum's limit is per API key over all
 * endpoints) and only in the slots live changes leave free: the lowest priority class.
 */

const cleanups = cleanupAfterEach();
const LIMIT = { requests: 3, windowMs: 2_000 };
// Four meetings in four hours: four remaps, then four read-backs (one window each).
const STARTS = ['2026-03-02T09:00:00Z', '2026-03-02T11:00:00Z', '2026-03-02T13:00:00Z', '2026-03-02T15:00:00Z'];

describeEachEngine('read-back pacing through startBridge', (engine) => {
  it('when remaps and their read-backs share a small budget, then no interval of the window holds more than the limit and a live remap goes before read-backs due earlier', async () => {
    // Arrange: the first three remaps take the whole first window.
    const world = await startReadbackWorld(engine, cleanups, { MOMENTUM_RATE_LIMIT: '3/2s', MOMENTUM_READBACK_DELAY: '1s' });
    const post = (n: number) => world.meeting(`msg_paced_${n}`, { id: `teams-paced-${n}`, start: STARTS[n], end: STARTS[n]!.replace(':00:00Z', ':30:00Z') });
    for (const n of [0, 1, 2]) await post(n);
    const [first] = await world.momentum.waitFor(3);

    // Act: the fourth live change arrives once their three read-backs are due, before a slot frees.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    await post(3);
    await world.readBack(STARTS.length);
    await waitSettled(world.bridge.databaseUrl, 20_000);

    // Assert: what reached Momentum, and when.
    const requests = world.momentum.requests;
    const kinds = requests.map((seen) => (seen.method === 'GET' ? 'read' : 'remap'));
    expect(kinds).toEqual(['remap', 'remap', 'remap', 'remap', 'read', 'read', 'read', 'read']);
    const figures = pacingFigures(
      requests.map((seen) => seen.receivedAt),
      LIMIT,
    );
    expect(figures.busiest).toBeLessThanOrEqual(LIMIT.requests);
    // The fourth remap came after three read-backs were due, waited with them for a slot, and went first.
    expect(requests[3]!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(LIMIT.windowMs);
    expect(await world.rows('SELECT readback_outcome FROM delivered_meetings')).toEqual(Array(STARTS.length).fill({ readback_outcome: 'confirmed' }));
    const jobs = await expectSettled(world.bridge.databaseUrl);
    expect(jobs.filter((job) => job.kind === 'readback').map((job) => job.state)).toEqual(Array(STARTS.length).fill('succeeded'));
  });
});
