import { afterEach, describe, expect, it } from 'vitest';

import { createMomentumClient, type MomentumClient } from '../../src/momentum/client.ts';
import { type SandboxReceiver, startSandboxReceiver } from '../../src/momentum/sandbox-receiver.ts';
import { captureLogs } from '../support/log-capture.ts';

const remap = { source: { id: 'evt-1', type: 'GOOGLE_CALENDAR' }, salesforceRecords: { opportunityId: '0065w000023STAmAAO' } };

describe('startSandboxReceiver', () => {
  let receiver: SandboxReceiver | undefined;
  let client: MomentumClient | undefined;

  afterEach(async () => {
    await client?.close();
    await receiver?.close();
    client = receiver = undefined;
  });

  const start = async () => {
    const captured = captureLogs();
    receiver = await startSandboxReceiver(captured.logger);
    client = createMomentumClient({
      apiBaseUrl: receiver.url,
      receiverUrl: receiver.url,
      importPath: '/user-provided-meeting',
      apiKey: 'sandbox',
      timeoutMs: 2_000,
    });
    return { ...captured, receiver, client };
  };

  it('when the bridge sends a remap, then it is accepted like Momentum would and logged loudly with path, flags and body', async () => {
    const { client, lines, receiver } = await start();

    const result = await client.remap(remap, { triggerSummary: true, triggerAiSignals: false }, { idempotencyKey: '12' });

    expect(receiver.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(result).toMatchObject({ kind: 'success', status: 200 });
    expect(result.kind === 'success' && result.requestId).toMatch(/^sandbox-/);
    const logged = lines().filter((line) => line.sandbox === true);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({
      level: 'warn',
      path: '/v1/meeting/remap',
      flags: { triggerSummary: true, triggerAiSignals: false },
      idempotencyKey: '12',
      body: remap,
    });
    expect(String(logged[0]!.message)).toContain('SANDBOX');
  });

  it('when the bridge sends an import, then it is accepted and logged with the import path', async () => {
    const { client, lines } = await start();
    const body = { meeting: { id: 'm-1', title: 'Demo' }, processImportedMeeting: false };

    const result = await client.importMeeting(body, { idempotencyKey: '3' });

    expect(result.kind).toBe('success');
    expect(lines().filter((line) => line.sandbox === true)).toEqual([expect.objectContaining({ path: '/user-provided-meeting', body })]);
  });

  it("when a remap breaks Momentum's rules, then the sandbox answers 400 with the problem and logs no remap", async () => {
    const { client, lines } = await start();

    const result = await client.remap(
      { salesforceRecords: { leadId: '00Q5w00001XYZabEAF' } } as never,
      { triggerSummary: false, triggerAiSignals: false },
      { idempotencyKey: '4' },
    );

    expect(result).toMatchObject({ kind: 'http_error', status: 400, excerpt: '(root): a remap needs source or meetingDetails' });
    expect(lines().filter((line) => line.sandbox === true)).toHaveLength(0);
  });

  it('when something other than a POST or the meeting listing arrives, then it is refused with 405', async () => {
    const { receiver } = await start();

    const response = await fetch(`${receiver.url}/v1/meeting/remap`);

    expect(response.status).toBe(405);
    expect(await response.json()).toEqual({ error: 'the sandbox Momentum receiver only accepts POST, and GET /v1/meetings' });
  });

  it('when the body is not JSON, then it is refused with 400', async () => {
    const { receiver, lines } = await start();

    const response = await fetch(`${receiver.url}/v1/meeting/remap`, { method: 'POST', body: 'not json', headers: { 'content-type': 'application/json' } });

    expect(response.status).toBe(400);
    expect(lines().filter((line) => line.sandbox === true)).toHaveLength(0);
  });
});
