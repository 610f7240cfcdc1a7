import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { createMomentumClient, type MomentumClient } from '../../src/momentum/client.ts';
import { createImportHandler } from '../../src/momentum/delivery-handlers.ts';
import { type FakeMomentum, replies, startFakeMomentum } from '../fakes/fake-momentum.ts';
import { captureLogs } from '../support/log-capture.ts';
import { makeContext, makeJob, RATE_KEY, recordingPacer } from './support/handler-doubles.ts';

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
