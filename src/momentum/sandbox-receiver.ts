import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { z } from 'zod';

import { describeIssues } from '../core/describe-issues.ts';
import type { Logger } from '../core/logger.ts';
import { createSandboxMeetings, type SandboxMeetings } from './sandbox-meetings.ts';
import { importRequestSchema, remapRequestSchema } from './schemas.ts';

/**
 * Sandbox mode: with no MOMENTUM_API_KEY outside production, this loopback server
 * stands in for Momentum so a newcomer sees every remap the bridge would send. It answers like
 * Momentum (`{accepted: true, requestId}`) and logs each request loudly, and it lists the meetings
 * it was told of (`GET /v1/meetings`, sandbox-meetings.ts). Never used in production.
 */
export interface SandboxReceiver {
  /** Use as both MOMENTUM_API_BASE_URL and MOMENTUM_RECEIVER_URL. */
  url: string;
  close(): Promise<void>;
}

const REMAP_PATH = '/v1/meeting/remap';
const LIST_PATH = '/v1/meetings';
const MAX_BODY_BYTES = 1024 * 1024;

export async function startSandboxReceiver(logger: Logger): Promise<SandboxReceiver> {
  const meetings = createSandboxMeetings();
  const server = createServer((req, res) => {
    handle(req, res, logger, meetings).catch((error: unknown) => {
      logger.error('sandbox Momentum receiver failed', { error });
      if (!res.headersSent) reply(res, 500, { error: 'sandbox receiver failed' });
    });
  });
  // Loopback only: the sandbox must never be reachable from outside the machine.
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, logger: Logger, meetings: SandboxMeetings): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
  if (req.method === 'GET' && url.pathname === LIST_PATH) {
    const answer = meetings.list(url.searchParams);
    return reply(res, answer.status, answer.body);
  }
  if (req.method !== 'POST') return reply(res, 405, { error: 'the sandbox Momentum receiver only accepts POST, and GET /v1/meetings' });
  const text = await readBody(req);
  if (text === undefined) return reply(res, 413, { error: `body larger than ${MAX_BODY_BYTES} bytes` });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return reply(res, 400, { error: 'body is not JSON' });
  }
  // The remap lives on the API host, the import on the receiver host; here both share one server.
  const isRemap = url.pathname === REMAP_PATH;
  const problem = isRemap
    ? receive(remapRequestSchema, body, (request) => meetings.remap(request))
    : receive(importRequestSchema, body, (request) => meetings.importMeeting(request));
  if (problem !== undefined) return reply(res, 400, { error: problem });
  const requestId = `sandbox-${randomUUID()}`;
  const flags = { triggerSummary: url.searchParams.get('triggerSummary') === 'true', triggerAiSignals: url.searchParams.get('triggerAiSignals') === 'true' };
  // Loud on purpose: in sandbox mode this log line is where the newcomer sees the remap.
  logger.warn(`SANDBOX: Momentum ${isRemap ? 'remap' : 'import'} received (nothing was sent to Momentum)`, {
    sandbox: true,
    path: url.pathname,
    ...(isRemap ? { flags } : {}),
    idempotencyKey: req.headers['idempotency-key'],
    body,
    upstreamRequestId: requestId,
  });
  reply(res, 200, { accepted: true, requestId });
}

/** Checks a body against its schema and hands it to the meetings; the issues when it fails. */
function receive<T>(schema: z.ZodType<T>, body: unknown, apply: (request: T) => void): string | undefined {
  const checked = schema.safeParse(body);
  if (!checked.success) return describeIssues(checked.error);
  apply(checked.data);
  return undefined;
}

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
