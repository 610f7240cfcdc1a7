import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A lighter fake Momentum than test/fakes/fake-momentum.ts: it keeps no request log (20 000
 * recorded bodies would measure the fake's memory, not the bridge), reads each body and answers
 * `200 {"accepted":true,"requestId":…}` at once. `onRequest` sees the parsed body when given.
 */

export interface BenchFake {
  url: string;
  /** Requests answered since start or the last reset. */
  count(): number;
  reset(): void;
  close(): Promise<void>;
}

export async function startBenchFake(onRequest?: (body: unknown, receivedAt: number) => void): Promise<BenchFake> {
  let count = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const receivedAt = performance.now();
      count += 1;
      if (onRequest) onRequest(JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown, receivedAt);
      const body = JSON.stringify({ accepted: true, requestId: `bench-${count}` });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  // Room for every lane of every client at once; the default backlog would be enough, this is explicit.
  server.listen({ port: 0, host: '127.0.0.1', backlog: 1024 });
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    count: () => count,
    reset: () => void (count = 0),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
