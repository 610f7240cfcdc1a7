import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { createMomentumClient, type MomentumClient } from '../../src/momentum/client.ts';
import type { RemapRequest } from '../../src/momentum/schemas.ts';
import { type FakeMomentum, replies, startFakeMomentum } from '../fakes/fake-momentum.ts';
import { freeLoopbackPort } from '../support/listen-on-loopback.ts';

const request: RemapRequest = {
  source: { id: 'evt-1', type: 'GOOGLE_CALENDAR' },
  salesforceRecords: { opportunityId: '0065w000023STAmAAO' },
};
const noFlags = { triggerSummary: false, triggerAiSignals: false };
const API_KEY = 'test-key-1234567890';

describe('createMomentumClient', () => {
  let fake: FakeMomentum;
  let client: MomentumClient;
  const clients: MomentumClient[] = [];

  const makeClient = (overrides: { apiBaseUrl?: string; timeoutMs?: number } = {}) => {
    const made = createMomentumClient({
      apiBaseUrl: overrides.apiBaseUrl ?? fake.url,
      receiverUrl: fake.url,
      importPath: '/user-provided-meeting',
      apiKey: API_KEY,
      timeoutMs: overrides.timeoutMs ?? 5_000,
    });
    clients.push(made);
    return made;
  };

  beforeEach(async () => {
    fake = await startFakeMomentum();
    client = makeClient();
  });
  afterEach(async () => {
    for (const made of clients.splice(0)) await made.close();
    await fake.close();
  });

  it('when a remap is sent, then method, path, headers and body are exactly as Momentum documents', async () => {
    fake.queue(replies.accept('req-abc'));

    const result = await client.remap(request, noFlags, { idempotencyKey: '41' });

    expect(result).toMatchObject({ kind: 'success', status: 200, requestId: 'req-abc' });
    expect(fake.requests).toHaveLength(1);
    const seen = fake.requests[0]!;
    expect(seen.method).toBe('POST');
    expect(seen.path).toBe('/v1/meeting/remap');
    expect(seen.query).toEqual({});
    expect(seen.body).toEqual(request);
    expect(seen.headers['x-api-key']).toBe(API_KEY);
    expect(seen.headers['content-type']).toBe('application/json');
    expect(seen.headers['idempotency-key']).toBe('41');
    expect(seen.headers['user-agent']).toBe('crm-sync-bridge/0.1.0');
  });

  it('when flags are true, then only the true ones are sent as query parameters', async () => {
    await client.remap(request, { triggerSummary: true, triggerAiSignals: false }, { idempotencyKey: '1' });
    await client.remap(request, { triggerSummary: false, triggerAiSignals: true }, { idempotencyKey: '2' });
    await client.remap(request, { triggerSummary: true, triggerAiSignals: true }, { idempotencyKey: '3' });

    expect(fake.requests.map((seen) => seen.query)).toEqual([
      { triggerSummary: 'true' },
      { triggerAiSignals: 'true' },
      { triggerSummary: 'true', triggerAiSignals: 'true' },
    ]);
  });

  it('when the same job is sent twice (a retry), then both requests carry the same Idempotency-Key', async () => {
    fake.failThenAccept();

    const first = await client.remap(request, noFlags, { idempotencyKey: '77' });
    const second = await client.remap(request, noFlags, { idempotencyKey: '77' });

    expect(first.kind).toBe('http_error');
    expect(second.kind).toBe('success');
    expect(fake.requests.map((seen) => seen.headers['idempotency-key'])).toEqual(['77', '77']);
  });

  it('when an import is sent, then it goes to the receiver URL and the configured import path', async () => {
    const importClient = createMomentumClient({
      apiBaseUrl: 'http://127.0.0.1:9',
      receiverUrl: fake.url,
      importPath: '/v1/user-provided-meeting',
      apiKey: API_KEY,
      timeoutMs: 5_000,
    });
    clients.push(importClient);
    const body = { meeting: { id: 'm-1', title: 'Demo' }, processImportedMeeting: true };

    const result = await importClient.importMeeting(body, { idempotencyKey: '5' });

    expect(result.kind).toBe('success');
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({ method: 'POST', path: '/v1/user-provided-meeting', body, query: {} });
    expect(fake.requests[0]!.headers['x-api-key']).toBe(API_KEY);
  });

  it('when Momentum answers 200 accepted:false, then the result is rejected with the request id', async () => {
    fake.queue({ kind: 'reject', requestId: 'req-no', message: 'meeting not found' });

    const result = await client.remap(request, noFlags, { idempotencyKey: '1' });

    expect(result).toMatchObject({ kind: 'rejected', status: 200, requestId: 'req-no', excerpt: 'meeting not found' });
  });

  it('when Momentum answers 400 with an error body, then the excerpt is its error field', async () => {
    fake.queue(replies.badRequest('salesforceRecords.opportunityId: unknown record'));

    const result = await client.remap(request, noFlags, { idempotencyKey: '1' });

    expect(result).toMatchObject({ kind: 'http_error', status: 400, excerpt: 'salesforceRecords.opportunityId: unknown record' });
  });

  it('when Momentum answers 429 with Retry-After, then the raw header is returned', async () => {
    fake.queue(replies.rateLimited('120'));

    const result = await client.remap(request, noFlags, { idempotencyKey: '1' });

    expect(result).toMatchObject({ kind: 'http_error', status: 429, retryAfter: '120', excerpt: 'Rate limit exceeded' });
  });

  it('when Momentum answers 500, then the status and message excerpt are returned', async () => {
    fake.queue(replies.serverError(500));

    const result = await client.remap(request, noFlags, { idempotencyKey: '1' });

    expect(result).toMatchObject({ kind: 'http_error', status: 500, excerpt: 'internal error' });
    expect(result.kind === 'http_error' && result.retryAfter).toBeUndefined();
  });

  it('when a 2xx body is not the documented shape, then it still counts as success', async () => {
    fake.queue(replies.status(202, 'ok'));

    const result = await client.remap(request, noFlags, { idempotencyKey: '1' });

    expect(result).toMatchObject({ kind: 'success', status: 202, body: 'ok' });
    expect(result.kind === 'success' && result.requestId).toBeUndefined();
  });

  it('when nothing listens on the port, then the result is a network error', async () => {
    const port = await freeLoopbackPort();
    const refused = makeClient({ apiBaseUrl: `http://127.0.0.1:${port}` });

    const result = await refused.remap(request, noFlags, { idempotencyKey: '1' });

    expect(result).toMatchObject({ kind: 'network', code: 'ECONNREFUSED' });
  });

  it('when Momentum hangs past the timeout, then the result is a timeout and the request was received', async () => {
    fake.queue(replies.hang());
    const impatient = makeClient({ timeoutMs: 300 });

    const result = await impatient.remap(request, noFlags, { idempotencyKey: '1' });

    expect(result.kind).toBe('timeout');
    expect(fake.requests).toHaveLength(1);
  });

  it('when Momentum sends headers and then stalls the body past the timeout, then the result is a timeout', async () => {
    fake.queue(replies.stallBody());
    const impatient = makeClient({ timeoutMs: 300 });

    const result = await impatient.remap(request, noFlags, { idempotencyKey: '1' });

    expect(result.kind).toBe('timeout');
  });

  it('when Momentum answers 503 for two requests, then the third succeeds', async () => {
    fake.failTimes(2, 503);

    const results = [];
    for (let index = 0; index < 3; index += 1) results.push(await client.remap(request, noFlags, { idempotencyKey: '8' }));

    expect(results.map((result) => (result.kind === 'http_error' ? result.status : result.kind))).toEqual([503, 503, 'success']);
    expect(fake.requests).toHaveLength(3);
  });

  it('when the caller aborts, then the result is aborted rather than timeout', async () => {
    fake.queue(replies.hang());
    const controller = new AbortController();

    const pending = client.remap(request, noFlags, { idempotencyKey: '1', signal: controller.signal });
    await fake.waitFor(1);
    controller.abort();

    expect((await pending).kind).toBe('aborted');
  });

  it('when the caller has already aborted, then nothing is sent and the result is aborted', async () => {
    const controller = new AbortController();
    controller.abort();

    const result = await client.remap(request, noFlags, { idempotencyKey: '1', signal: controller.signal });

    expect(result.kind).toBe('aborted');
    expect(fake.requests).toHaveLength(0);
  });

  it('when several calls are made, then they reuse kept-alive connections', async () => {
    for (let index = 0; index < 6; index += 1) await client.remap(request, noFlags, { idempotencyKey: String(index) });

    expect(fake.requests.map((seen) => seen.headers.connection)).toEqual(Array(6).fill('keep-alive'));
    // The pool may open a second socket while the first finishes its response, never one per call.
    expect(new Set(fake.requests.map((seen) => seen.remotePort)).size).toBeLessThan(6);
  });
});
