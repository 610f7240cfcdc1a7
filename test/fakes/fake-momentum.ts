import { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';

import { restartableServer } from '../support/listen-on-loopback.ts';
import { createFakeMeetingBook, type FakeMeetingBook } from './fake-momentum-meetings.ts';

/**
 * A fake Momentum on loopback: records every request and answers as scripted, so tests see
 * exactly what the bridge sent (and what it did not). Replies come from the queue first, then
 * from the script function, then from the default: 200 accepted, and for `GET /v1/meetings` the
 * meetings it holds (`meetings`, fake-momentum-meetings.ts), to which every remap it accepts is applied.
 */
export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body, or the raw text when it is not JSON. */
  body: unknown;
  rawBody: string;
  receivedAt: number;
  /** The client's port: equal ports mean one kept-alive connection. */
  remotePort: number | undefined;
}

export type FakeReply =
  | { kind: 'accept'; requestId?: string }
  | { kind: 'reject'; requestId?: string; message?: string }
  | { kind: 'status'; status: number; body?: unknown; headers?: Record<string, string> }
  /** Never answers; the connection stays open until the client gives up or close(). */
  | { kind: 'hang' }
  /** Sends 200 headers and half a body, then stalls: a timeout must cover the body too. */
  | { kind: 'stallBody' }
  /** Answers `then` after `ms`: keeps deliveries in flight (shutdown and crash scenarios). */
  | { kind: 'delay'; ms: number; then: FakeReply }
  /** Answers `then` once `until` settles: keeps a delivery in flight for exactly as long as a test needs. */
  | { kind: 'held'; until: Promise<unknown>; then: FakeReply };

export const replies = {
  accept: (requestId?: string): FakeReply => ({ kind: 'accept', requestId }),
  reject: (message?: string): FakeReply => ({ kind: 'reject', message }),
  status: (status: number, body?: unknown, headers?: Record<string, string>): FakeReply => ({ kind: 'status', status, body, headers }),
  rateLimited: (retryAfter?: string): FakeReply => ({
    kind: 'status',
    status: 429,
    body: { error: 'Rate limit exceeded' },
    headers: retryAfter === undefined ? {} : { 'retry-after': retryAfter },
  }),
  badRequest: (error = 'meetingDetails.startTime: invalid date-time'): FakeReply => ({ kind: 'status', status: 400, body: { error } }),
  serverError: (status = 500): FakeReply => ({ kind: 'status', status, body: { message: 'internal error' } }),
  hang: (): FakeReply => ({ kind: 'hang' }),
  stallBody: (): FakeReply => ({ kind: 'stallBody' }),
  delayed: (ms: number, then: FakeReply = { kind: 'accept' }): FakeReply => ({ kind: 'delay', ms, then }),
  held: (until: Promise<unknown>, then: FakeReply = { kind: 'accept' }): FakeReply => ({ kind: 'held', until, then }),
};

export interface FakeMomentum {
  start(): Promise<string>;
  /** Base URL (also usable as the receiver URL); set after start(). */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Queues replies for the next requests, in order. */
  queue(...next: FakeReply[]): void;
  /** `500` then `200`: the classic transient failure. */
  failThenAccept(status?: number): void;
  /** The same status for the next `count` requests. */
  failTimes(count: number, status?: number): void;
  /** The meetings `GET /v1/meetings` lists; accepted remaps and imports change them. */
  readonly meetings: FakeMeetingBook;
  /** Decides replies once the queue is empty. */
  script(decide: ((request: RecordedRequest, index: number) => FakeReply) | undefined): void;
  waitFor(count: number, timeoutMs?: number): Promise<RecordedRequest[]>;
  close(): Promise<void>;
}

export function createFakeMomentum(): FakeMomentum {
  const requests: RecordedRequest[] = [];
  const pending: FakeReply[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  let decide: ((request: RecordedRequest, index: number) => FakeReply) | undefined;
  const meetings = createFakeMeetingBook();

  const byDefault = (request: RecordedRequest): FakeReply => {
    if (request.method !== 'GET' || request.path !== '/v1/meetings') return replies.accept();
    const answer = meetings.list(request.query);
    return replies.status(answer.status, answer.body);
  };

  const onRequest = async (req: IncomingMessage, res: ServerResponse) => {
    const recorded = await recordRequest(req);
    const index = requests.push(recorded) - 1;
    for (const waiter of waiters.filter((w) => requests.length >= w.count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    const reply = pending.shift() ?? decide?.(recorded, index) ?? byDefault(recorded);
    if (reply.kind === 'accept' && recorded.method === 'POST') {
      // Momentum applies what it accepted (asynchronously, but before any later listing in a test).
      if (recorded.path === '/v1/meeting/remap') meetings.remapAccepted(recorded.body);
      else meetings.importAccepted(recorded.body);
    }
    sendReply(res, reply, index);
  };

  const loopback = restartableServer((req, res) => void onRequest(req, res));
  return {
    start: () => loopback.start(),
    get url() {
      return loopback.url;
    },
    requests,
    meetings,
    queue: (...next) => void pending.push(...next),
    failThenAccept: (status = 500) => void pending.push(replies.serverError(status), replies.accept()),
    failTimes: (count, status = 503) => void pending.push(...Array.from({ length: count }, () => replies.serverError(status))),
    script: (fn) => void (decide = fn),
    waitFor(count, timeoutMs = 5_000) {
      if (requests.length >= count) return Promise.resolve(requests.slice());
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`fake Momentum saw ${requests.length} requests, expected ${count}`)), timeoutMs);
        waiters.push({ count, resolve: () => (clearTimeout(timer), resolve(requests.slice())) });
      });
    },
    close: () => loopback.close(),
  };
}

export async function startFakeMomentum(): Promise<FakeMomentum> {
  const fake = createFakeMomentum();
  await fake.start();
  return fake;
}

/**
 * Reads a request to its end and records it as the Momentum fakes keep it (a JSON body parsed, else
 * its text). `receivedAt` defaults to now, once the body is read.
 */
export async function recordRequest(req: IncomingMessage, receivedAt?: number): Promise<RecordedRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const rawBody = Buffer.concat(chunks).toString('utf8');
  const parsedUrl = new URL(req.url ?? '/', 'http://fake.invalid');
  return {
    method: req.method ?? '',
    path: parsedUrl.pathname,
    query: Object.fromEntries(parsedUrl.searchParams),
    headers: req.headers,
    body: parseJson(rawBody),
    rawBody,
    receivedAt: receivedAt ?? Date.now(),
    remotePort: req.socket.remotePort,
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Writes `reply` as the fake Momentum answers it; `index` (0-based) names the default request id. */
export function sendReply(res: ServerResponse, reply: FakeReply, index: number): void {
  if (reply.kind === 'hang') return;
  if (reply.kind === 'delay') {
    setTimeout(() => sendReply(res, reply.then, index), reply.ms);
    return;
  }
  if (reply.kind === 'held') {
    void reply.until.finally(() => sendReply(res, reply.then, index));
    return;
  }
  if (reply.kind === 'stallBody') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"accepted":');
    return;
  }
  const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
    const text = typeof body === 'string' ? body : JSON.stringify(body ?? {});
    res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json', ...headers });
    res.end(text);
  };
  if (reply.kind === 'accept') return json(200, { accepted: true, requestId: reply.requestId ?? `fake-req-${index + 1}` });
  if (reply.kind === 'reject') {
    return json(200, { accepted: false, requestId: reply.requestId ?? `fake-req-${index + 1}`, ...(reply.message ? { message: reply.message } : {}) });
  }
  json(reply.status, reply.body, reply.headers);
}
