import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';

import { busiestWindow } from '../../src/store/rate-log.ts';
import { createSlidingWindow, IMPORT_PATH, REMAP_PATH, startStrictMomentum, type StrictMomentum } from './strict-momentum.ts';

/*
 * The strict fake is the yardstick of the pacing tests, so its own arithmetic is proved here: a
 * sliding window (now - W, now] over accepted requests of both endpoints, refusals not counted.
 */

const N = 3;
const W = 1_000;

let fake: StrictMomentum | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** A fake whose window runs on a clock the test sets. */
async function fakeAt(options: { latencyMs?: number } = {}) {
  const clock = { now: 0 };
  fake = await startStrictMomentum({ requests: N, windowMs: W, now: () => clock.now, ...options });
  const post = async (at: number, path = REMAP_PATH) => {
    clock.now = at;
    const response = await fetch(`${fake!.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ at }) });
    return { status: response.status, body: (await response.json()) as unknown };
  };
  return { fake, post };
}

describe('strict fake Momentum: its sliding window', () => {
  it('when N requests arrive at one instant, then the next is refused with 429 until W has passed, and accepted at exactly W later', async () => {
    // Arrange
    const { fake, post } = await fakeAt();

    // Act
    const first = [await post(0), await post(0), await post(0)];
    const tooSoon = await post(999);
    const atW = await post(1_000);

    // Assert: (now - W, now] at 1 000 no longer holds the requests made at 0.
    expect(first.map((reply) => reply.status)).toEqual([200, 200, 200]);
    expect(first[0]?.body).toEqual({ accepted: true, requestId: 'strict-1' });
    expect(tooSoon).toEqual({ status: 429, body: { error: 'Rate limit exceeded' } });
    expect(atW.status).toBe(200);
    expect(fake.rateLimited).toBe(1);
    expect(fake.requests.map((request) => [request.receivedAt, request.status])).toEqual([
      [0, 200],
      [0, 200],
      [0, 200],
      [999, 429],
      [1_000, 200],
    ]);
  });

  it('when the window slides, then it counts from each arrival, not from fixed window boundaries', async () => {
    // Arrange: one request at 0, two at 600. A fixed window [1 000, 2 000) would admit three from 1 000 on.
    const { post } = await fakeAt();
    for (const at of [0, 600, 600]) expect((await post(at)).status).toBe(200);

    // Act
    const statuses = [];
    for (const at of [1_000, 1_001, 1_599, 1_600, 1_600, 1_601]) statuses.push((await post(at)).status);

    // Assert: at 1 000 the request of 0 has left; the two of 600 stay until 1 600 (then room for two).
    expect(statuses).toEqual([200, 429, 429, 200, 200, 429]);
  });

  it('when requests are refused, then they do not count: the window holds only accepted ones', async () => {
    // Arrange
    const { fake, post } = await fakeAt();
    for (const at of [0, 0, 0]) await post(at);

    // Act: nine refusals inside the window, then the first instant the accepted ones have left.
    for (let at = 100; at < 1_000; at += 100) await post(at);
    const refusedInWindow = fake.rateLimited;
    const afterRefusals = [await post(1_000), await post(1_000), await post(1_000), await post(1_000)];

    // Assert: a full window again at 1 000, as if the refusals had never come.
    expect(refusedInWindow).toBe(9);
    expect(afterRefusals.map((reply) => reply.status)).toEqual([200, 200, 200, 429]);
  });

  it('when remaps and imports are mixed, then both endpoints draw from one window (one API key)', async () => {
    // Arrange
    const { fake, post } = await fakeAt();

    // Act
    const statuses = [
      (await post(0, REMAP_PATH)).status,
      (await post(10, IMPORT_PATH)).status,
      (await post(20, REMAP_PATH)).status,
      (await post(30, IMPORT_PATH)).status,
      (await post(40, '/somewhere-else')).status,
    ];

    // Assert: an unknown path is 404 and does not count.
    expect(statuses).toEqual([200, 200, 200, 429, 404]);
    expect(fake.accepted().map((request) => request.path)).toEqual([REMAP_PATH, IMPORT_PATH, REMAP_PATH]);
    expect(fake.requests[0]).toMatchObject({ method: 'POST', body: { at: 0 }, headers: { 'content-type': 'application/json' } });
  });

  it('when a latency is set, then accepted requests are answered after it and refusals at once', async () => {
    // Arrange
    fake = await startStrictMomentum({ requests: 1, windowMs: 60_000, latencyMs: 300 });
    const timed = async () => {
      const started = performance.now();
      const response = await fetch(`${fake!.url}${REMAP_PATH}`, { method: 'POST', body: '{}' });
      await response.text();
      return { status: response.status, ms: performance.now() - started };
    };

    // Act
    const [slow, refused] = await Promise.all([timed(), new Promise((resolve) => setTimeout(resolve, 50)).then(timed)]);

    // Assert
    expect(slow.status).toBe(200);
    expect(slow.ms).toBeGreaterThanOrEqual(290);
    expect(refused.status).toBe(429);
    expect(refused.ms).toBeLessThan(250);
  });

  it('for any arrival times, then no interval of W holds more than N accepted requests, and each refusal met N in its window', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 5_000 }), { maxLength: 60 }), fc.integer({ min: 1, max: 5 }), (raw, requests) => {
        const arrivals = [...raw].sort((a, b) => a - b);
        const window = createSlidingWindow({ requests, windowMs: W });
        const accepted: number[] = [];
        for (const at of arrivals) {
          const before = window.inWindow(at);
          if (window.admit(at)) accepted.push(at);
          else expect(before).toBe(requests);
        }
        expect(busiestWindow(accepted, W)).toBeLessThanOrEqual(requests);
        // Greedy admission refuses only what it must: as many as N in a burst at one instant.
        if (arrivals.length > 0) expect(accepted.length).toBeGreaterThanOrEqual(Math.min(requests, arrivals.length));
      }),
    );
  });
});
