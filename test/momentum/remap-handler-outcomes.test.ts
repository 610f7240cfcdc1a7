import { describe, expect, it } from 'vitest';

import { createMomentumClient } from '../../src/momentum/client.ts';
import { createRemapHandler } from '../../src/momentum/delivery-handlers.ts';
import { replies } from '../fakes/fake-momentum.ts';
import { captureLogs } from '../support/log-capture.ts';
import { makeContext, makeJob, RATE_KEY } from './support/handler-doubles.ts';
import { KEY, payload, useRemapHandlerWorld } from './support/remap-handler-world.ts';

describe('createRemapHandler', () => {
  const world = useRemapHandlerWorld();
  const { setup } = world;

  it('when Momentum accepts, then the job succeeds with the request id and a full attempt record', async () => {
    const { handler, limiter, lines, context } = setup();
    world.fake.queue(replies.accept('req-42'));

    const result = await handler(makeJob({ id: 7, payload, coalesceKey: KEY }), context);

    expect(result).toMatchObject({ kind: 'succeeded', result: { requestId: 'req-42', status: 200 } });
    expect(result.attempt).toMatchObject({ status: 200, upstreamRequestId: 'req-42' });
    expect(result.attempt?.errorClass).toBeUndefined();
    expect(typeof result.attempt?.startedAt).toBe('number');
    expect(result.attempt?.durationMs).toBeGreaterThanOrEqual(0);
    expect(world.fake.requests).toHaveLength(1);
    expect(world.fake.requests[0]).toMatchObject({ path: '/v1/meeting/remap', query: { triggerSummary: 'true' }, body: payload.request });
    expect(world.fake.requests[0]!.headers['idempotency-key']).toBe('7');
    expect(result.calledUpstream).toBe(true);
    expect(limiter.blocks).toEqual([]);
    expect(lines().find((line) => line.message === 'remap forwarded')).toMatchObject({ level: 'debug', jobId: 7, status: 200, upstreamRequestId: 'req-42' });
    expect(JSON.stringify(lines())).not.toContain('k-123456');
  });

  it('when the payload fails its schema, then the job is dead as invalid_request and nothing is sent', async () => {
    const { handler, context } = setup();
    const bad = { request: { salesforceRecords: {} }, flags: payload.flags };

    const result = await handler(makeJob({ payload: bad }), context);

    expect(result.kind).toBe('final');
    expect(result.kind === 'final' && result.state).toBe('dead');
    expect(result.kind === 'final' && result.reason).toBe(
      'invalid_request: request.salesforceRecords: salesforceRecords needs at least one of opportunityId, accountId, leadId; request: a remap needs source or meetingDetails',
    );
    expect(result.attempt).toMatchObject({ errorClass: 'invalid_request', durationMs: 0 });
    expect(result.attempt?.status).toBeUndefined();
    expect(world.fake.requests).toHaveLength(0);
    // No call went out: the job's call slot is given back.
    expect(result.calledUpstream).toBeUndefined();
  });

  it('when Momentum answers each retryable status, then the job is retryable and the limiter is not blocked', async () => {
    const { handler, limiter, context } = setup();
    const statuses = [408, 425, 500, 502, 503, 504];
    for (const status of statuses) world.fake.queue(replies.status(status, { message: `status ${status}` }, status === 503 ? { 'retry-after': '30' } : {}));

    const results = [];
    for (const status of statuses) results.push(await handler(makeJob({ id: status, payload }), context));

    expect(results.map((result) => result.kind)).toEqual(Array(statuses.length).fill('retryable'));
    expect(results.map((result) => result.attempt?.status)).toEqual(statuses);
    expect(results[statuses.indexOf(503)]).toMatchObject({ retryAfterMs: 30_000 });
    expect(results.map((result) => result.kind === 'retryable' && result.minDelayMs)).toEqual(Array(statuses.length).fill(undefined));
    expect(limiter.blocks).toEqual([]);
  });

  it('when Momentum answers another 4xx, then the job is dead with the status and the error excerpt', async () => {
    const { handler, context } = setup();
    world.fake.queue(replies.badRequest('meetingDetails.startTime: invalid'));

    const result = await handler(makeJob({ payload }), context);

    expect(result).toMatchObject({ kind: 'final', state: 'dead', reason: 'HTTP 400: meetingDetails.startTime: invalid' });
    expect(result.attempt).toMatchObject({ status: 400, errorClass: 'http_4xx', responseExcerpt: 'meetingDetails.startTime: invalid' });
  });

  it('when Momentum answers 200 accepted:false, then the job is dead as rejected', async () => {
    const { handler, context } = setup();
    world.fake.queue({ kind: 'reject', requestId: 'req-r', message: 'no such meeting' });

    const result = await handler(makeJob({ payload }), context);

    expect(result).toMatchObject({ kind: 'final', state: 'dead', reason: 'rejected: no such meeting' });
    expect(result.attempt).toMatchObject({ status: 200, errorClass: 'rejected', upstreamRequestId: 'req-r' });
  });

  it('when Momentum hangs past the timeout, then the job is retryable no sooner than 60 s', async () => {
    const { handler, context, done } = setup({ timeoutMs: 300 });
    world.fake.queue(replies.hang());

    const result = await handler(makeJob({ payload }), context);
    await done();

    expect(result).toMatchObject({ kind: 'retryable', minDelayMs: 60_000 });
    expect(result.attempt?.errorClass).toBe('timeout');
    expect(result.attempt?.status).toBeUndefined();
    expect(world.fake.requests).toHaveLength(1);
  });

  it('when Momentum is unreachable, then the job is retryable as a network error', async () => {
    const { logger } = captureLogs();
    const unreachable = createMomentumClient({ apiBaseUrl: world.fake.url, receiverUrl: world.fake.url, importPath: '/x', apiKey: 'k', timeoutMs: 2_000 });
    await world.fake.close();
    const handler = createRemapHandler({ client: unreachable, store: world.realStore, rateKey: RATE_KEY, logger });

    const result = await handler(makeJob({ payload }), makeContext(logger));
    await unreachable.close();

    expect(result).toMatchObject({ kind: 'retryable' });
    expect(result.kind === 'retryable' && result.minDelayMs).toBeUndefined();
    expect(result.attempt?.errorClass).toBe('network');
  });
});
