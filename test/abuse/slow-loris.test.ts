import { once } from 'node:events';
import { connect, type Socket } from 'node:net';

import { afterEach, describe, expect, it } from 'vitest';

import { parseConfig } from '../../src/settings.ts';
import { type BridgeHarness, startBridgeHarness } from '../metrics/support/metrics-bridge.ts';
import { storedCounts } from '../support/stored-rows.ts';

/*
 * Slow clients against the bridge's HTTP server: the server's timeouts cut them before anything is
 * read or stored. Engine-blind (nothing reaches the store), so one engine is enough.
 */

let harness: BridgeHarness | undefined;
const sockets: Socket[] = [];
const timers: NodeJS.Timeout[] = [];
afterEach(async () => {
  for (const timer of timers.splice(0)) clearInterval(timer);
  for (const socket of sockets.splice(0)) socket.destroy();
  await harness?.close();
  harness = undefined;
});

interface SlowClient {
  /** Everything the server wrote back. */
  received: () => string;
  /** Resolves when the server closed the connection; rejects if it is still open after `guardMs`. */
  closed: (guardMs?: number) => Promise<void>;
}

/** A raw TCP client that sends `head` at once, then one `drip` every 50 ms, forever. */
async function slowClient(url: string, head: string, drip: string): Promise<SlowClient> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  sockets.push(socket);
  await once(socket, 'connect');
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  socket.on('error', () => {}); // a reset after the server cuts the connection is expected
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(head);
  timers.push(setInterval(() => socket.writable && socket.write(drip), 50));
  return {
    received: () => received,
    closed: (guardMs = 10_000) =>
      Promise.race([
        closed,
        new Promise<void>((_resolve, reject) => setTimeout(() => reject(new Error(`connection still open after ${guardMs} ms`)), guardMs).unref()),
      ]),
  };
}

describe('slow clients (HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS)', () => {
  it('when a sender never finishes its headers, then the server answers 408 and closes the connection, and keeps serving others meanwhile', async () => {
    harness = await startBridgeHarness({ HEADERS_TIMEOUT_MS: '400', REQUEST_TIMEOUT_MS: '800' });
    const loris = await slowClient(
      harness.bridge.url,
      'POST /salesforce/outbound-message HTTP/1.1\r\nHost: bridge\r\nContent-Type: text/xml\r\n',
      'X-Slow: a\r\n',
    );

    const othersMeanwhile = await fetch(`${harness.bridge.url}/healthz`);
    await loris.closed();
    const othersAfter = await fetch(`${harness.bridge.url}/healthz`);

    expect(othersMeanwhile.status).toBe(200);
    expect(loris.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(othersAfter.status).toBe(200);
    expect(storedCounts(harness.file)).toEqual({ messages: 0, events: 0, jobs: 0 });
  });

  it('when a sender sends its headers but drips the body, then the request is cut at the whole-request timeout and nothing is stored', async () => {
    harness = await startBridgeHarness({ HEADERS_TIMEOUT_MS: '400', REQUEST_TIMEOUT_MS: '800' });
    const head = 'POST /salesforce/outbound-message HTTP/1.1\r\nHost: bridge\r\nContent-Type: text/xml; charset=utf-8\r\nContent-Length: 100000\r\n\r\n<?xml';

    const loris = await slowClient(harness.bridge.url, head, ' ');
    await loris.closed();
    const othersAfter = await fetch(`${harness.bridge.url}/healthz`);

    expect(loris.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(othersAfter.status).toBe(200);
    expect(storedCounts(harness.file)).toEqual({ messages: 0, events: 0, jobs: 0 });
  });
});

describe('HEADERS_TIMEOUT_MS and REQUEST_TIMEOUT_MS settings', () => {
  it('when the whole-request timeout is shorter than the headers timeout, then the start is refused naming both', () => {
    expect(() => parseConfig({ HEADERS_TIMEOUT_MS: '20000', REQUEST_TIMEOUT_MS: '10000' })).toThrow(
      'REQUEST_TIMEOUT_MS: must be at least HEADERS_TIMEOUT_MS (20000); got 10000',
    );
  });
});
