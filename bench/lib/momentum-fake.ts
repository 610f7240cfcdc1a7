import { createServer } from 'node:http';

import { listenOnLoopback } from '../../test/support/listen-on-loopback.ts';

/**
 * A fake Momentum for the benchmarks, lighter than test/fakes/fake-momentum.ts: it keeps no
 * request log of its own (20 000 recorded bodies would measure the fake's memory, not the
 * bridge), reads each body and answers at once. With `limit` it enforces Momentum's rate limit
 * as a strict sliding window: over it, 429 with Retry-After, as Momentum does. `onCall` sees
 * every call with its arrival time on `clock` (whole milliseconds, as a server counts, by default).
 */

export interface FakeCall {
  /** `clock()` when the whole body had arrived. */
  at: number;
  status: 200 | 429;
  body: unknown;
}

export interface MomentumFakeOptions {
  limit?: { requests: number; windowMs: number };
  onCall?: (call: FakeCall) => void;
  clock?: () => number;
}

export async function startMomentumFake(options: MomentumFakeOptions = {}): Promise<{ url: string; close: () => Promise<void> }> {
  const { limit, onCall, clock = Date.now } = options;
  const window = limit === undefined ? undefined : createSlidingWindow(limit);
  let count = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = clock();
      count += 1;
      const wait = window?.arrive(at) ?? 0;
      const call: FakeCall = { at, status: wait > 0 ? 429 : 200, body: parseJson(Buffer.concat(chunks).toString('utf8')) };
      onCall?.(call);
      const text = JSON.stringify(wait > 0 ? { error: 'Rate limit exceeded' } : { accepted: true, requestId: `bench-${count}` });
      const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) };
      if (wait > 0) headers['retry-after'] = Math.ceil(wait / 1000);
      res.writeHead(call.status, headers);
      res.end(text);
    });
  });
  const { url, close } = await listenOnLoopback(server);
  return { url, close };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A strict sliding window, the stricter of the two ways an upstream may count "N requests per W"
 * (a fixed window lets up to 2N through across a boundary): a request at `now` is refused when N
 * requests already arrived in (now - W, now]. Refused requests count too, so a client that keeps
 * knocking stays refused. `arrive` records a request and returns the wait in ms before one would
 * be admitted, 0 when this one is.
 */
export function createSlidingWindow(limit: { requests: number; windowMs: number }): { arrive(now: number): number } {
  const arrivals: number[] = [];
  return {
    arrive(now) {
      while (arrivals.length > 0 && (arrivals[0] as number) <= now - limit.windowMs) arrivals.shift();
      const wait = arrivals.length >= limit.requests ? (arrivals[arrivals.length - limit.requests] as number) + limit.windowMs - now : 0;
      arrivals.push(now);
      return wait;
    },
  };
}
