import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

import { listenOnLoopback } from '../support/listen-on-loopback.ts';
import { type RecordedRequest, recordRequest, replies, sendReply } from './fake-momentum.ts';

/**
 * A Momentum that enforces its rate limit the strictest way: N requests per W as a sliding window
 * over every request to either endpoint (remap and import share one API key's budget). A request is
 * refused with 429 `{"error":"Rate limit exceeded"}` when N accepted requests already arrived in
 * (now - W, now]; a refused request does not count. Wherever a window starts, it never admits more
 * than N, so a bridge that paces by a fixed window or a token bucket meets 429s here that a lenient
 * upstream would let through.
 *
 * It records every request (arrival time, path, body, headers) with the status it got, and can
 * answer accepted requests after an artificial latency, so calls are in flight when a test needs.
 */

export const REMAP_PATH = '/v1/meeting/remap';
export const IMPORT_PATH = '/user-provided-meeting';

export interface StrictMomentumOptions {
  /** N: most requests accepted in any interval of `windowMs`. */
  requests: number;
  /** W in milliseconds. */
  windowMs: number;
  /** How long an accepted request waits for its answer (ms), fixed or per request; 0 by default. */
  latencyMs?: number | ((request: RecordedRequest, index: number) => number);
  /** The window's clock (epoch ms); Date.now by default. Only the fake's own tests set it. */
  now?: () => number;
}

export interface StrictRequest extends RecordedRequest {
  /** 200 accepted, 429 refused by the window, 404 not an endpoint (not counted). */
  status: number;
}

export interface StrictMomentum {
  /** Base URL, for MOMENTUM_API_BASE_URL and MOMENTUM_RECEIVER_URL alike. */
  readonly url: string;
  /** Every request in arrival order, with the status it got. */
  readonly requests: readonly StrictRequest[];
  /** The requests the window admitted. */
  accepted(): StrictRequest[];
  /** How many requests were refused with 429. */
  readonly rateLimited: number;
  /** Resolves once `count` requests were accepted; rejects after `timeoutMs`. */
  waitForAccepted(count: number, timeoutMs?: number): Promise<StrictRequest[]>;
  close(): Promise<void>;
}

/**
 * The window arithmetic alone: `admit(at)` says whether a request arriving at `at` is accepted
 * and, if so, counts it. Arrival times must not go backwards.
 */
export function createSlidingWindow(limit: { requests: number; windowMs: number }) {
  const admitted: number[] = [];
  return {
    admit(at: number): boolean {
      // Requests at or before at - W have left the window (it is (at - W, at]).
      while (admitted.length > 0 && (admitted[0] as number) <= at - limit.windowMs) admitted.shift();
      if (admitted.length >= limit.requests) return false;
      admitted.push(at);
      return true;
    },
    /** Accepted requests still inside the window ending at `at`. */
    inWindow: (at: number) => admitted.filter((time) => time > at - limit.windowMs && time <= at).length,
  };
}

export async function startStrictMomentum(options: StrictMomentumOptions): Promise<StrictMomentum> {
  const now = options.now ?? Date.now;
  const window = createSlidingWindow(options);
  const requests: StrictRequest[] = [];
  const waiters = new Set<{ count: number; resolve: () => void }>();
  let rateLimited = 0;
  const accepted = () => requests.filter((request) => request.status === 200);
  const latencyOf = (request: RecordedRequest, index: number) =>
    typeof options.latencyMs === 'function' ? options.latencyMs(request, index) : (options.latencyMs ?? 0);

  const onRequest = async (req: IncomingMessage, res: ServerResponse) => {
    // The window decides on arrival (headers read), before the body is: that is when a request counts.
    const receivedAt = now();
    const parsedUrl = new URL(req.url ?? '/', 'http://strict.invalid');
    const isEndpoint = req.method === 'POST' && (parsedUrl.pathname === REMAP_PATH || parsedUrl.pathname === IMPORT_PATH);
    const status = !isEndpoint ? 404 : window.admit(receivedAt) ? 200 : 429;
    const recorded: StrictRequest = { ...(await recordRequest(req, receivedAt)), status };
    const index = requests.push(recorded) - 1;
    if (status === 404) return sendReply(res, replies.status(404, { error: 'Not found' }), index);
    if (status === 429) {
      rateLimited += 1;
      return sendReply(res, replies.rateLimited(), index);
    }
    const count = accepted().length;
    for (const waiter of [...waiters].filter((w) => count >= w.count)) {
      waiters.delete(waiter);
      waiter.resolve();
    }
    const latency = latencyOf(recorded, index);
    sendReply(
      res,
      latency > 0 ? replies.delayed(latency, { kind: 'accept', requestId: `strict-${index + 1}` }) : { kind: 'accept', requestId: `strict-${index + 1}` },
      index,
    );
  };

  const server: Server = createServer((req, res) => void onRequest(req, res));
  const { url, close } = await listenOnLoopback(server);
  return {
    url,
    requests,
    accepted,
    get rateLimited() {
      return rateLimited;
    },
    waitForAccepted(count, timeoutMs = 10_000) {
      if (accepted().length >= count) return Promise.resolve(accepted());
      return new Promise((resolve, reject) => {
        const waiter = {
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(accepted());
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`strict Momentum accepted ${accepted().length} requests, expected ${count}`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    close,
  };
}
