import { Agent } from 'undici';

import { classifyFailure, classifyResponse, type MomentumOutcome } from './classify-response.ts';
import { type ListMeetingsQuery, listMeetingsQuerySchema, type MeetingPage, readMeetingPage } from './meeting-list.ts';
import type { ImportRequest, RemapFlags, RemapRequest } from './schemas.ts';
import { bridgeUserAgent } from './user-agent.ts';

export type { MomentumOutcome } from './classify-response.ts';

export interface MomentumClientOptions {
  /** Base of the remap endpoint (MOMENTUM_API_BASE_URL), no trailing slash needed. */
  apiBaseUrl: string;
  /** Base of the import endpoint (MOMENTUM_RECEIVER_URL): a different host (docs/protocols.md §1). */
  receiverUrl: string;
  /** MOMENTUM_IMPORT_PATH, default `/user-provided-meeting`. */
  importPath: string;
  apiKey: string;
  /** Total time for one call, connect to last body byte (MOMENTUM_TIMEOUT_MS). */
  timeoutMs: number;
  /** Defaults to `crm-sync-bridge/<package version>`. */
  userAgent?: string;
  /** Connect timeout; 5 s unless a test needs otherwise. */
  connectTimeoutMs?: number;
}

export interface CallOptions {
  /** The job id: the same on every retry, so Momentum can drop a duplicate. */
  idempotencyKey: string;
  /** The worker's stop signal; a call it aborts is `aborted`, not `timeout`. */
  signal?: AbortSignal;
}

/** Every call ends in one classified outcome, timed; the client never throws for an upstream failure. */
export type MomentumCallResult = MomentumOutcome & { startedAt: number; durationMs: number };

/**
 * A listing call: its classified outcome, and the page when the answer was a 2xx the bridge can
 * read (`problem` says why a 2xx could not be read: retrying will not change it).
 */
export interface MomentumListResult {
  call: MomentumCallResult;
  page?: MeetingPage;
  problem?: string;
}

export interface MomentumClient {
  remap(request: RemapRequest, flags: RemapFlags, options: CallOptions): Promise<MomentumCallResult>;
  importMeeting(request: ImportRequest, options: CallOptions): Promise<MomentumCallResult>;
  /** One page of `GET /v1/meetings` (docs/protocols.md §1). Throws only for a query that breaks the listing's own rules. */
  listMeetings(query: ListMeetingsQuery, options: Pick<CallOptions, 'signal'>): Promise<MomentumListResult>;
  close(): Promise<void>;
}

// Bodies past this are drained, not kept: the attempt log keeps at most 4 KB anyway.
const MAX_KEPT_BODY_BYTES = 64 * 1024;
// A listing page carries up to 50 meetings, each with its transcript: read whole up to this.
const MAX_LIST_BODY_BYTES = 32 * 1024 * 1024;

interface Send {
  method: 'GET' | 'POST';
  body?: unknown;
  idempotencyKey?: string;
  signal?: AbortSignal | undefined;
  expectRemapResponse: boolean;
  maxBytes: number;
}

export function createMomentumClient(options: MomentumClientOptions): MomentumClient {
  const userAgent = options.userAgent ?? bridgeUserAgent();
  // An Agent keeps one keep-alive Pool per origin: the API and the receiver each get their own.
  const agent = new Agent({
    connect: { timeout: options.connectTimeoutMs ?? 5_000 },
    // Backstops for the total timeout below; the signal is what classifies a hang as `timeout`.
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });
  const remapUrl = new URL('v1/meeting/remap', withSlash(options.apiBaseUrl));
  const listUrl = new URL('v1/meetings', withSlash(options.apiBaseUrl));
  const importUrl = new URL(options.importPath.replace(/^\//, ''), withSlash(options.receiverUrl));

  async function send(url: URL, call: Send): Promise<{ result: MomentumCallResult; oversized: boolean }> {
    const startedAt = Date.now();
    // One controller for the total timeout and the caller's signal: AbortSignal.timeout plus
    // AbortSignal.any cost a composite signal and a weak-ref timer per call (measured ~3 % of a drain).
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    }, options.timeoutMs);
    const forward = () => controller.abort(call.signal?.reason);
    if (call.signal?.aborted) forward();
    else call.signal?.addEventListener('abort', forward, { once: true });
    const signal = controller.signal;
    let outcome: MomentumOutcome;
    let oversized = false;
    try {
      const response = await agent.request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: call.method,
        headers: {
          ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
          'x-api-key': options.apiKey,
          ...(call.idempotencyKey === undefined ? {} : { 'idempotency-key': call.idempotencyKey }),
          'user-agent': userAgent,
          accept: 'application/json',
        },
        ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
        signal,
      });
      const read = await readCapped(response.body, call.maxBytes);
      oversized = read.size > call.maxBytes;
      outcome = classifyResponse(response.statusCode, response.headers, read.text, call.expectRemapResponse);
    } catch (error) {
      outcome = classifyFailure(error, { timedOut, aborted: call.signal?.aborted === true });
    } finally {
      clearTimeout(timer);
      call.signal?.removeEventListener('abort', forward);
    }
    return { result: { ...outcome, startedAt, durationMs: Date.now() - startedAt }, oversized };
  }

  const post = async (url: URL, body: unknown, call: CallOptions, expectRemapResponse: boolean): Promise<MomentumCallResult> =>
    (await send(url, { method: 'POST', body, idempotencyKey: call.idempotencyKey, signal: call.signal, expectRemapResponse, maxBytes: MAX_KEPT_BODY_BYTES }))
      .result;

  return {
    remap(request, flags, call) {
      const url = new URL(remapUrl);
      // Momentum's defaults are false: send a flag only when it is true.
      if (flags.triggerSummary) url.searchParams.set('triggerSummary', 'true');
      if (flags.triggerAiSignals) url.searchParams.set('triggerAiSignals', 'true');
      return post(url, request, call, true);
    },
    importMeeting(request, call) {
      return post(importUrl, request, call, false);
    },
    async listMeetings(query, call) {
      const checked = listMeetingsQuerySchema.parse(query);
      const url = new URL(listUrl);
      url.searchParams.set('from', new Date(checked.from).toISOString());
      url.searchParams.set('to', new Date(checked.to).toISOString());
      url.searchParams.set('pageNumber', String(checked.pageNumber));
      url.searchParams.set('pageSize', String(checked.pageSize));
      if (checked.salesforceAccountId) url.searchParams.set('salesforceAccountId', checked.salesforceAccountId);
      if (checked.salesforceOpportunityId) url.searchParams.set('salesforceOpportunityId', checked.salesforceOpportunityId);
      const { result, oversized } = await send(url, { method: 'GET', signal: call.signal, expectRemapResponse: false, maxBytes: MAX_LIST_BODY_BYTES });
      if (result.kind !== 'success') return { call: result };
      // The page is returned on its own: the call keeps only its status, not the whole listing.
      const answered = { ...result, body: null };
      if (oversized) return { call: answered, problem: `the listing page is larger than ${MAX_LIST_BODY_BYTES} bytes` };
      const read = readMeetingPage(result.body, checked);
      return 'page' in read ? { call: answered, page: read.page } : { call: answered, problem: read.problem };
    },
    close: () => agent.close(),
  };
}

function withSlash(base: string): string {
  return base.endsWith('/') ? base : `${base}/`;
}

async function readCapped(body: AsyncIterable<Buffer>, maxBytes: number): Promise<{ text: string; size: number }> {
  const kept: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (size < maxBytes) kept.push(chunk.subarray(0, maxBytes - size));
    size += chunk.length;
  }
  return { text: Buffer.concat(kept).toString('utf8'), size };
}
