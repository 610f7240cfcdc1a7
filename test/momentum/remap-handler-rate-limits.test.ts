import { describe, expect, it } from 'vitest';

import { createPacer } from '../../src/jobs/pacer.ts';
import { createRemapHandler } from '../../src/momentum/delivery-handlers.ts';
import { replies } from '../fakes/fake-momentum.ts';
import { captureLogs } from '../support/log-capture.ts';
import { makeContext, makeJob, NOW, RATE_KEY } from './support/handler-doubles.ts';
import { KEY, payload, useRemapHandlerWorld } from './support/remap-handler-world.ts';

describe('createRemapHandler', () => {
  const world = useRemapHandlerWorld();
  const { setup } = world;

  it('when Momentum answers 2xx with RateLimit-Remaining 0 and a reset, then the budget is blocked until the reset though the call succeeded', async () => {
    const { handler, limiter, context } = setup();
    world.fake.queue(replies.status(200, { accepted: true, requestId: 'r-1' }, { 'ratelimit-remaining': '0', 'ratelimit-reset': '42' }));

    const result = await handler(makeJob({ payload, coalesceKey: KEY }), context);

    expect(result).toMatchObject({ kind: 'succeeded', calledUpstream: true });
    expect(limiter.blocks).toEqual([{ key: RATE_KEY, untilMs: NOW + 42_000 }]);
  });

  it('when Momentum answers with X-RateLimit headers that leave budget, then nothing is blocked', async () => {
    const { handler, limiter, context } = setup();
    world.fake.queue(
      replies.status(200, { accepted: true, requestId: 'r-1' }, { 'x-ratelimit-remaining': '12', 'x-ratelimit-reset': String(Math.floor(NOW / 1000) + 600) }),
    );

    await handler(makeJob({ payload, coalesceKey: KEY }), context);

    expect(limiter.blocks).toEqual([]);
  });

  it('when Momentum answers 429 with an exhausted X-RateLimit-Reset as a Unix time and no Retry-After, then the budget is blocked until that time', async () => {
    const { handler, limiter, context } = setup();
    world.fake.queue(
      replies.status(429, { error: 'Rate limit exceeded' }, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 90) }),
    );

    await handler(makeJob({ payload, coalesceKey: KEY }), context);

    // A Unix time is read against the clock when the answer came; the block counts from the job's now.
    expect(limiter.blocks).toHaveLength(1);
    expect(limiter.blocks[0]!.untilMs - NOW).toBeGreaterThan(88_000);
    expect(limiter.blocks[0]!.untilMs - NOW).toBeLessThanOrEqual(90_000);
  });

  it('when Momentum answers 429 with Retry-After, then the job retries no sooner than 60 s and the limiter is blocked until Retry-After', async () => {
    const { handler, limiter, context } = setup();
    world.fake.queue(replies.rateLimited('120'));

    const result = await handler(makeJob({ payload, coalesceKey: KEY }), context);

    expect(result).toMatchObject({ kind: 'retryable', error: 'HTTP 429: Rate limit exceeded', retryAfterMs: 120_000, minDelayMs: 60_000 });
    expect(result.attempt).toMatchObject({ status: 429, errorClass: 'http_4xx', responseExcerpt: 'Rate limit exceeded' });
    expect(limiter.blocks).toEqual([{ key: RATE_KEY, untilMs: NOW + 120_000 }]);
  });

  it('when Momentum answers 429, then the budget in the store is blocked for every instance until Retry-After', async () => {
    const { logger } = captureLogs();
    const pacer = createPacer(world.realStore, [{ key: RATE_KEY, limit: { requests: 100, windowMs: 900_000 } }]);
    const handler = createRemapHandler({ client: world.client, store: world.realStore, pacer, rateKey: RATE_KEY, logger });
    world.fake.queue(replies.rateLimited('120'));
    const now = Date.now();

    const limited = await handler(makeJob({ id: 1, payload }), { ...makeContext(logger), now: () => now });

    expect(limited).toMatchObject({ kind: 'retryable', calledUpstream: true });
    expect(await pacer.view(RATE_KEY)).toMatchObject({ remaining: 0, blockedUntil: now + 120_000, nextFreeAt: now + 120_000 });
    expect(world.fake.requests).toHaveLength(1);
  });

  it('when Momentum answers 429 with a fractional Retry-After, then the block lasts the fraction too, rounded up', async () => {
    const { handler, limiter, context } = setup();
    world.fake.queue(replies.rateLimited('90.128'));

    const result = await handler(makeJob({ payload, coalesceKey: KEY }), context);

    expect(result).toMatchObject({ kind: 'retryable', retryAfterMs: 90_128 });
    expect(limiter.blocks).toEqual([{ key: RATE_KEY, untilMs: NOW + 90_128 }]);
  });

  it('when Momentum answers 429 without Retry-After, then the limiter is blocked for 60 s', async () => {
    const { handler, limiter, context } = setup();
    world.fake.queue(replies.rateLimited());

    const result = await handler(makeJob({ payload, coalesceKey: KEY }), context);

    expect(result).toMatchObject({ kind: 'retryable', minDelayMs: 60_000 });
    expect(result.kind === 'retryable' && result.retryAfterMs).toBeUndefined();
    expect(limiter.blocks).toEqual([{ key: RATE_KEY, untilMs: NOW + 60_000 }]);
  });

  it('when Momentum answers 429 with an HTTP-date Retry-After, then the delay is counted from now', async () => {
    const { handler, limiter, context } = setup();
    world.fake.queue(replies.rateLimited(new Date(NOW + 300_000).toUTCString()));

    const result = await handler(makeJob({ payload, coalesceKey: KEY }), context);

    expect(result).toMatchObject({ kind: 'retryable', retryAfterMs: 300_000 });
    expect(limiter.blocks).toEqual([{ key: RATE_KEY, untilMs: NOW + 300_000 }]);
  });
});
