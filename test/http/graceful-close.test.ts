import http from 'node:http';

import { afterEach, describe, expect, it } from 'vitest';

import { closeGracefully } from '../../src/http/graceful-close.ts';
import { listenOnLoopback } from '../support/listen-on-loopback.ts';

/* A real server whose one route answers only when the test says so. keepAliveTimeout 0 turns the
 * server's own idle timer off, so only closeGracefully can end an idle keep-alive socket. */
async function serverWithHeldResponse() {
  let release = () => {};
  let entered = () => {};
  const inFlight = new Promise<void>((resolve) => (entered = resolve));
  const server = http.createServer((_req, res) => {
    release = () => res.writeHead(200, { 'content-type': 'text/plain' }).end('finished');
    entered();
  });
  server.keepAliveTimeout = 0;
  const { port } = await listenOnLoopback(server);
  return { server, port, inFlight, release: () => release() };
}

const agents: http.Agent[] = [];
function get(port: number, agent: http.Agent): Promise<{ status: number; body: string }> {
  agents.push(agent);
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

afterEach(() => {
  for (const agent of agents.splice(0)) agent.destroy();
});

describe('closeGracefully', () => {
  it('when a request is in flight, then it finishes, new connections are refused, and close resolves once it is answered', async () => {
    // Arrange
    const { server, port, inFlight, release } = await serverWithHeldResponse();
    const reply = get(port, new http.Agent({ keepAlive: true }));
    await inFlight;

    // Act: a deadline far beyond the test timeout, so only the finished response can end the close.
    const closed = closeGracefully(server, 600_000);
    const refused = await get(port, new http.Agent()).catch((error: NodeJS.ErrnoException) => error.code);
    release();

    // Assert
    await expect(reply).resolves.toEqual({ status: 200, body: 'finished' });
    await expect(closed).resolves.toBeUndefined();
    expect(refused).toBe('ECONNREFUSED');
    expect(server.listening).toBe(false);
  });

  it('when a request outlives the deadline, then its connection is cut and close resolves', async () => {
    // Arrange
    const { server, port, inFlight } = await serverWithHeldResponse();
    const reply = get(port, new http.Agent({ keepAlive: true })).catch((error: NodeJS.ErrnoException) => error.code);
    await inFlight;

    // Act
    await closeGracefully(server, 50);

    // Assert
    expect(await reply).toBe('ECONNRESET');
    expect(server.listening).toBe(false);
  });

  it('when a keep-alive connection is idle at close, then it is dropped at once and close resolves', async () => {
    // Arrange
    const { server, port, inFlight, release } = await serverWithHeldResponse();
    const agent = new http.Agent({ keepAlive: true });
    const first = get(port, agent);
    await inFlight;
    release();
    await first;

    // Act
    await closeGracefully(server, 600_000);

    // Assert
    expect(server.listening).toBe(false);
  });
});
