import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { createSlidingWindow } from './sliding-window.ts';

/**
 * A fake Momentum that enforces its rate limit as a strict sliding window (sliding-window.ts):
 * over the limit it answers 429 with Retry-After, as Momentum does, else 200 accepted. It keeps
 * every request's arrival time (its own clock, whole milliseconds as a server counts), answer and
 * parsed body, so the benchmark reads what Momentum would have seen. Listens on 127.0.0.1 only.
 */

export interface QuotaCall {
  /** Date.now() when the whole body had arrived. */
  at: number;
  status: 200 | 429;
  body: unknown;
}

export interface QuotaFake {
  url: string;
  calls(): readonly QuotaCall[];
  /** Resolves on every request from now on (for waiters). */
  onCall(listener: (call: QuotaCall) => void): void;
  close(): Promise<void>;
}

export async function startQuotaFake(limit: { requests: number; windowMs: number }): Promise<QuotaFake> {
  const window = createSlidingWindow(limit);
  const calls: QuotaCall[] = [];
  const listeners: Array<(call: QuotaCall) => void> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = Date.now();
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
      const wait = window.arrive(at);
      const call: QuotaCall = { at, status: wait > 0 ? 429 : 200, body };
      calls.push(call);
      for (const listener of listeners) listener(call);
      const reply = wait > 0 ? { error: 'Rate limit exceeded' } : { accepted: true, requestId: `quota-${calls.length}` };
      const text = JSON.stringify(reply);
      const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) };
      if (wait > 0) headers['retry-after'] = Math.ceil(wait / 1000);
      res.writeHead(call.status, headers);
      res.end(text);
    });
  });
  server.listen({ port: 0, host: '127.0.0.1' });
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls: () => calls,
    onCall: (listener) => void listeners.push(listener),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
