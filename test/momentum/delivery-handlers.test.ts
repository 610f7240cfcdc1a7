import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { createPacer } from '../../src/jobs/pacer.ts';
import { createMomentumClient, type MomentumClient } from '../../src/momentum/client.ts';
import { createImportHandler, createRemapHandler } from '../../src/momentum/delivery-handlers.ts';
import { remapCoalesceKey } from '../../src/momentum/remap-coalesce-key.ts';
import type { RemapDeliveryPayload } from '../../src/momentum/schemas.ts';
import type { Store } from '../../src/store/types.ts';
import { type FakeMomentum, replies, startFakeMomentum } from '../fakes/fake-momentum.ts';
import { captureLogs } from '../support/log-capture.ts';
import { openRealStore } from '../support/real-store.ts';
import { makeContext, makeJob, NOW, recordingPacer } from './support/handler-doubles.ts';
import { enqueueAndClaim, recordSucceeded, spyLastSucceeded } from './support/stored-jobs.ts';

const RATE_KEY = 'momentum:test-key';
const payload: RemapDeliveryPayload = {
  request: { source: { id: 'evt-1', type: 'GOOGLE_CALENDAR' }, salesforceRecords: { opportunityId: '0065w000023STAmAAO' } },
  flags: { triggerSummary: true, triggerAiSignals: false },
};
const KEY = remapCoalesceKey(payload.request);

describe('createRemapHandler', () => {
  let fake: FakeMomentum;
  let client: MomentumClient;
  let realStore: Store;
  let cleanupStore: () => Promise<void>;

  beforeEach(async () => {
    fake = await startFakeMomentum();
    client = createMomentumClient({ apiBaseUrl: fake.url, receiverUrl: fake.url, importPath: '/user-provided-meeting', apiKey: 'k-123456', timeoutMs: 2_000 });
    ({ store: realStore, close: cleanupStore } = await openRealStore());
  });
  afterEach(async () => {
    await client.close();
    await fake.close();
    await cleanupStore();
  });

  const setup = (options: { timeoutMs?: number } = {}) => {
    const { logger, lines } = captureLogs();
    const limiter = recordingPacer();
    const store = spyLastSucceeded(realStore);
    const handlerClient =
      options.timeoutMs === undefined
        ? client
        : createMomentumClient({ apiBaseUrl: fake.url, receiverUrl: fake.url, importPath: '/x', apiKey: 'k-123456', timeoutMs: options.timeoutMs });
    const handler = createRemapHandler({ client: handlerClient, store, pacer: limiter, rateKey: RATE_KEY, logger });
    return { handler, limiter, store, lines, context: makeContext(logger), done: () => (handlerClient === client ? undefined : handlerClient.close()) };
  };

  it('when Momentum accepts, then the job succeeds with the request id and a full attempt record', async () => {
    const { handler, limiter, lines, context } = setup();
    fake.queue(replies.accept('req-42'));

    const result = await handler(makeJob({ id: 7, payload, coalesceKey: KEY }), context);

    expect(result).toMatchObject({ kind: 'succeeded', result: { requestId: 'req-42', status: 200 } });
    expect(result.attempt).toMatchObject({ status: 200, upstreamRequestId: 'req-42' });
    expect(result.attempt?.errorClass).toBeUndefined();
    expect(typeof result.attempt?.startedAt).toBe('number');
    expect(result.attempt?.durationMs).toBeGreaterThanOrEqual(0);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({ path: '/v1/meeting/remap', query: { triggerSummary: 'true' }, body: payload.request });
    expect(fake.requests[0]!.headers['idempotency-key']).toBe('7');
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
    expect(fake.requests).toHaveLength(0);
    // No call went out: the job's call slot is given back.
    expect(result.calledUpstream).toBeUndefined();
  });

  it('when the last succeeded remap of the meeting had the same body and flags, then it is skipped as unchanged and nothing is sent', async () => {
    const reordered = {
      flags: { triggerAiSignals: false, triggerSummary: true },
      request: { salesforceRecords: payload.request.salesforceRecords, source: payload.request.source },
    };
    const earlier = await recordSucceeded(realStore, 'remap', reordered, KEY);
    const { handler, store, context } = setup();
    const job = await enqueueAndClaim(realStore, 'remap', payload, KEY);

    const result = await handler(job, context);

    expect(result).toMatchObject({ kind: 'final', state: 'skipped', reason: 'unchanged', result: { sameAs: earlier.id } });
    expect(result.attempt).toBeUndefined();
    expect(store.lookups).toEqual([`remap:${KEY}`]);
    expect(fake.requests).toHaveLength(0);
    expect(result.calledUpstream).toBeUndefined();
  });

  it('when the flags or the ids differ from the last succeeded remap, then it is sent', async () => {
    const otherFlags = { ...payload, flags: { triggerSummary: false, triggerAiSignals: false } };
    const otherIds = { ...payload, request: { ...payload.request, salesforceRecords: { accountId: '0015w00002ABCDEAAA' } } };
    await recordSucceeded(realStore, 'remap', otherFlags, KEY);
    const { handler, context } = setup();

    const firstJob = await enqueueAndClaim(realStore, 'remap', payload, KEY);
    const first = await handler(firstJob, context);
    await realStore.finish({ jobId: firstJob.id, leaseOwner: 'test-worker', outcome: { state: 'succeeded' } });
    // The ids changed since the last accepted remap of this meeting: sent again.
    const second = await handler(await enqueueAndClaim(realStore, 'remap', otherIds, KEY), context);

    expect([first.kind, second.kind]).toEqual(['succeeded', 'succeeded']);
    expect(fake.requests.map((seen) => seen.body)).toEqual([payload.request, otherIds.request]);
  });

  it('when only the meeting details changed but the ids and flags did not, then it is skipped as unchanged', async () => {
    const retitled = { ...payload, request: { ...payload.request, meetingDetails: { title: 'A new title' } } };
    const earlier = await recordSucceeded(realStore, 'remap', payload, KEY);
    const { handler, context } = setup();

    const result = await handler(await enqueueAndClaim(realStore, 'remap', retitled, KEY), context);

    expect(result).toMatchObject({ kind: 'final', state: 'skipped', reason: 'unchanged', result: { sameAs: earlier.id } });
    expect(fake.requests).toHaveLength(0);
  });

  it('when the job is a replay, then it is sent even though it is unchanged', async () => {
    const earlier = await recordSucceeded(realStore, 'remap', payload, KEY);
    const { handler, store, context } = setup();
    const [replay] = await realStore.enqueue([{ kind: 'remap', payload: { ...payload, replay: true }, coalesceKey: KEY, replayOf: earlier.id }]);
    const [job] = await realStore.claim({ owner: 'test-worker', limit: 1, leaseMs: 60_000 });

    expect(job?.id).toBe(replay?.id);
    const result = await handler(job!, context);

    expect(result.kind).toBe('succeeded');
    expect(store.lookups).toEqual([]);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.body).toEqual(payload.request);
  });

  it('when Momentum answers 2xx with RateLimit-Remaining 0 and a reset, then the budget is blocked until the reset though the call succeeded', async () => {
    const { handler, limiter, context } = setup();
    fake.queue(replies.status(200, { accepted: true, requestId: 'r-1' }, { 'ratelimit-remaining': '0', 'ratelimit-reset': '42' }));

    const result = await handler(makeJob({ payload, coalesceKey: KEY }), context);

    expect(result).toMatchObject({ kind: 'succeeded', calledUpstream: true });
    expect(limiter.blocks).toEqual([{ key: RATE_KEY, untilMs: NOW + 42_000 }]);
  });

  it('when Momentum answers with X-RateLimit headers that leave budget, then nothing is blocked', async () => {
    const { handler, limiter, context } = setup();
    fake.queue(
      replies.status(200, { accepted: true, requestId: 'r-1' }, { 'x-ratelimit-remaining': '12', 'x-ratelimit-reset': String(Math.floor(NOW / 1000) + 600) }),
    );

    await handler(makeJob({ payload, coalesceKey: KEY }), context);

    expect(limiter.blocks).toEqual([]);
  });

  it('when Momentum answers 429 with an exhausted X-RateLimit-Reset as a Unix time and no Retry-After, then the budget is blocked until that time', async () => {
    const { handler, limiter, context } = setup();
    fake.queue(
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
    fake.queue(replies.rateLimited('120'));

    const result = await handler(makeJob({ payload, coalesceKey: KEY }), context);

    expect(result).toMatchObject({ kind: 'retryable', error: 'HTTP 429: Rate limit exceeded', retryAfterMs: 120_000, minDelayMs: 60_000 });
    expect(result.attempt).toMatchObject({ status: 429, errorClass: 'http_4xx', responseExcerpt: 'Rate limit exceeded' });
    expect(limiter.blocks).toEqual([{ key: RATE_KEY, untilMs: NOW + 120_000 }]);
  });

  it('when Momentum answers 429, then the budget in the store is blocked for every instance until Retry-After', async () => {
    const { logger } = captureLogs();
    const pacer = createPacer(realStore, [{ key: RATE_KEY, limit: { requests: 100, windowMs: 900_000 } }]);
    const handler = createRemapHandler({ client, store: realStore, pacer, rateKey: RATE_KEY, logger });
    fake.queue(replies.rateLimited('120'));
    const now = Date.now();

    const limited = await handler(makeJob({ id: 1, payload }), { ...makeContext(logger), now: () => now });

    expect(limited).toMatchObject({ kind: 'retryable', calledUpstream: true });
    expect(await pacer.view(RATE_KEY)).toMatchObject({ remaining: 0, blockedUntil: now + 120_000, nextFreeAt: now + 120_000 });
    expect(fake.requests).toHaveLength(1);
  });

  it('when Momentum answers 429 with a fractional Retry-After, then the block lasts the fraction too, rounded up', async () => {
    const { handler, limiter, context } = setup();
    fake.queue(replies.rateLimited('90.128'));

    const result = await handler(makeJob({ payload, coalesceKey: KEY }), context);

    expect(result).toMatchObject({ kind: 'retryable', retryAfterMs: 90_128 });
    expect(limiter.blocks).toEqual([{ key: RATE_KEY, untilMs: NOW + 90_128 }]);
  });

  it('when Momentum answers 429 without Retry-After, then the limiter is blocked for 60 s', async () => {
    const { handler, limiter, context } = setup();
    fake.queue(replies.rateLimited());

    const result = await handler(makeJob({ payload, coalesceKey: KEY }), context);

    expect(result).toMatchObject({ kind: 'retryable', minDelayMs: 60_000 });
    expect(result.kind === 'retryable' && result.retryAfterMs).toBeUndefined();
    expect(limiter.blocks).toEqual([{ key: RATE_KEY, untilMs: NOW + 60_000 }]);
  });

  it('when Momentum answers 429 with an HTTP-date Retry-After, then the delay is counted from now', async () => {
    const { handler, limiter, context } = setup();
    fake.queue(replies.rateLimited(new Date(NOW + 300_000).toUTCString()));

    const result = await handler(makeJob({ payload, coalesceKey: KEY }), context);

    expect(result).toMatchObject({ kind: 'retryable', retryAfterMs: 300_000 });
    expect(limiter.blocks).toEqual([{ key: RATE_KEY, untilMs: NOW + 300_000 }]);
  });

  it('when Momentum answers each retryable status, then the job is retryable and the limiter is not blocked', async () => {
    const { handler, limiter, context } = setup();
    const statuses = [408, 425, 500, 502, 503, 504];
    for (const status of statuses) fake.queue(replies.status(status, { message: `status ${status}` }, status === 503 ? { 'retry-after': '30' } : {}));

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
    fake.queue(replies.badRequest('meetingDetails.startTime: invalid'));

    const result = await handler(makeJob({ payload }), context);

    expect(result).toMatchObject({ kind: 'final', state: 'dead', reason: 'HTTP 400: meetingDetails.startTime: invalid' });
    expect(result.attempt).toMatchObject({ status: 400, errorClass: 'http_4xx', responseExcerpt: 'meetingDetails.startTime: invalid' });
  });

  it('when Momentum answers 200 accepted:false, then the job is dead as rejected', async () => {
    const { handler, context } = setup();
    fake.queue({ kind: 'reject', requestId: 'req-r', message: 'no such meeting' });

    const result = await handler(makeJob({ payload }), context);

    expect(result).toMatchObject({ kind: 'final', state: 'dead', reason: 'rejected: no such meeting' });
    expect(result.attempt).toMatchObject({ status: 200, errorClass: 'rejected', upstreamRequestId: 'req-r' });
  });

  it('when Momentum hangs past the timeout, then the job is retryable no sooner than 60 s', async () => {
    const { handler, context, done } = setup({ timeoutMs: 300 });
    fake.queue(replies.hang());

    const result = await handler(makeJob({ payload }), context);
    await done();

    expect(result).toMatchObject({ kind: 'retryable', minDelayMs: 60_000 });
    expect(result.attempt?.errorClass).toBe('timeout');
    expect(result.attempt?.status).toBeUndefined();
    expect(fake.requests).toHaveLength(1);
  });

  it('when Momentum is unreachable, then the job is retryable as a network error', async () => {
    const { logger } = captureLogs();
    const unreachable = createMomentumClient({ apiBaseUrl: fake.url, receiverUrl: fake.url, importPath: '/x', apiKey: 'k', timeoutMs: 2_000 });
    await fake.close();
    const handler = createRemapHandler({ client: unreachable, store: realStore, rateKey: RATE_KEY, logger });

    const result = await handler(makeJob({ payload }), makeContext(logger));
    await unreachable.close();

    expect(result).toMatchObject({ kind: 'retryable' });
    expect(result.kind === 'retryable' && result.minDelayMs).toBeUndefined();
    expect(result.attempt?.errorClass).toBe('network');
  });
});

describe('createImportHandler', () => {
  let fake: FakeMomentum;
  let client: MomentumClient;

  beforeEach(async () => {
    fake = await startFakeMomentum();
    client = createMomentumClient({
      apiBaseUrl: 'http://127.0.0.1:9',
      receiverUrl: fake.url,
      importPath: '/user-provided-meeting',
      apiKey: 'k-1',
      timeoutMs: 2_000,
    });
  });
  afterEach(async () => {
    await client.close();
    await fake.close();
  });

  it('when the import is valid, then it is posted to the import path and succeeds', async () => {
    const { logger } = captureLogs();
    const limiter = recordingPacer();
    const request = {
      meeting: { id: 'm-1', title: 'Demo', startTime: '2026-05-08T13:00:00Z', attendees: [{ email: 'a@example.com', isInternal: false, name: 'A' }] },
      processImportedMeeting: true,
    };
    const handler = createImportHandler({ client, pacer: limiter, rateKey: RATE_KEY, logger, store: { lastSucceeded: async () => undefined } });
    fake.queue(replies.accept('imp-1'));

    const result = await handler(makeJob({ id: 55, kind: 'import', payload: { request } }), makeContext(logger));

    expect(result).toMatchObject({ kind: 'succeeded', result: { requestId: 'imp-1', status: 200 } });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({ path: '/user-provided-meeting', body: request, query: {} });
    expect(fake.requests[0]!.headers['idempotency-key']).toBe('55');
    expect(result.calledUpstream).toBe(true);
  });

  it('when the meeting id was imported successfully before, then it is skipped as already imported and nothing is sent, unless it is a replay', async () => {
    const { logger } = captureLogs();
    const earlier = makeJob({ id: 40, kind: 'import', state: 'succeeded', coalesceKey: 'import:m-1' });
    const handler = createImportHandler({ client, pacer: recordingPacer(), rateKey: RATE_KEY, logger, store: { lastSucceeded: async () => earlier } });
    const request = { meeting: { id: 'm-1', title: 'Demo' } };

    const again = await handler(makeJob({ id: 41, kind: 'import', coalesceKey: 'import:m-1', payload: { request } }), makeContext(logger));
    fake.queue(replies.accept('imp-2'));
    const replayed = await handler(makeJob({ id: 42, kind: 'import', coalesceKey: 'import:m-1', payload: { request, replay: true } }), makeContext(logger));

    expect(again).toMatchObject({ kind: 'final', state: 'skipped', reason: 'already imported', result: { sameAs: 40 } });
    expect(replayed).toMatchObject({ kind: 'succeeded' });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]?.body).toEqual(request);
  });

  it('when the import payload fails its schema, then it is dead and nothing is sent', async () => {
    const { logger } = captureLogs();
    const handler = createImportHandler({ client, pacer: recordingPacer(), rateKey: RATE_KEY, logger, store: { lastSucceeded: async () => undefined } });

    const result = await handler(makeJob({ kind: 'import', payload: { request: { meeting: { startTime: 'soon' } } } }), makeContext(logger));

    expect(result).toMatchObject({
      kind: 'final',
      state: 'dead',
      reason: 'invalid_request: request.meeting.startTime: expected an ISO 8601 date-time with Z or an offset',
    });
    expect(fake.requests).toHaveLength(0);
  });
});

describe('remapCoalesceKey', () => {
  const salesforceRecords = { accountId: '0015w00002ABCDEAAA' };

  it('when the request has a source, then the key is the source type and id', () => {
    expect(remapCoalesceKey({ source: { id: 'abc', type: 'ZOOM' }, salesforceRecords, meetingDetails: { momentumMeetingId: 5 } })).toBe('source:ZOOM:abc');
  });

  it('when the request has a Momentum meeting id and no source, then the key is that id', () => {
    expect(remapCoalesceKey({ salesforceRecords, meetingDetails: { momentumMeetingId: 5, title: 'x' } })).toBe('momentum:5');
  });

  it('when only host, start and title are known, then the key joins them with the email lower-cased', () => {
    expect(remapCoalesceKey({ salesforceRecords, meetingDetails: { hostEmail: 'AE@Example.com', startTime: '2026-05-08T13:40:22Z', title: 'QBR' } })).toBe(
      'meeting:ae@example.com|2026-05-08T13:40:22.000Z|QBR',
    );
    expect(remapCoalesceKey({ salesforceRecords, meetingDetails: { title: 'QBR' } })).toBe('meeting:||QBR');
  });

  it('when one instant is written with an offset or without milliseconds, then the key is the same', () => {
    const a = remapCoalesceKey({ salesforceRecords, meetingDetails: { startTime: '2026-05-08T15:40:22+02:00' } });
    const b = remapCoalesceKey({ salesforceRecords, meetingDetails: { startTime: '2026-05-08T13:40:22.000Z' } });
    expect(a).toBe(b);
  });
});
