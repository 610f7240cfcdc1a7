import { once } from 'node:events';
import net from 'node:net';

import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';

import { buildApp } from '../support/app-harness.ts';
import { listenOnLoopback, type LoopbackServer } from '../support/listen-on-loopback.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const servers: LoopbackServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** Sends bytes a well-behaved client refuses to (control characters in a header) and returns the raw reply. */
async function rawRequest(app: ReturnType<typeof buildApp>['app'], head: string): Promise<string> {
  const server = await listenOnLoopback(app);
  servers.push(server);
  const socket = net.connect(server.port, '127.0.0.1');
  let reply = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (reply += chunk));
  socket.end(head);
  await once(socket, 'close');
  return reply;
}

describe('X-Request-Id', () => {
  it('when the caller sends a sane id, then the response echoes it and the access log line carries it', async () => {
    // Arrange
    const { app, logs } = buildApp();

    // Act
    const reply = await request(app).get('/healthz').set('X-Request-Id', 'sf-notif.42:abc_DEF');

    // Assert
    expect(reply.headers['x-request-id']).toBe('sf-notif.42:abc_DEF');
    const access = await logs.waitForLine((line) => line.message === 'request');
    expect(access.requestId).toBe('sf-notif.42:abc_DEF');
  });

  it('when the caller sends none, then a UUID is generated and echoed', async () => {
    // Arrange
    const { app } = buildApp();

    // Act
    const first = await request(app).get('/healthz');
    const second = await request(app).get('/healthz');

    // Assert
    expect(first.headers['x-request-id']).toMatch(UUID);
    expect(second.headers['x-request-id']).toMatch(UUID);
    expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
  });

  it.each([
    ['is 300 characters long', 'a'.repeat(300)],
    ['has spaces, quotes and JSON', 'x" {"level":"error"}'],
    ['has a tab', 'abc\tdef'],
    ['is empty', ''],
  ])('when the offered id %s, then it is replaced by a generated one in the reply and the logs', async (_what, offered) => {
    // Arrange
    const { app, logs } = buildApp();

    // Act
    const reply = await request(app).get('/healthz').set('X-Request-Id', offered);

    // Assert
    expect(reply.status).toBe(200);
    expect(reply.headers['x-request-id']).toMatch(UUID);
    const access = await logs.waitForLine((line) => line.message === 'request');
    expect(access.requestId).toBe(reply.headers['x-request-id']);
    expect(logs.text()).not.toContain(offered === '' ? '"requestId":""' : offered.slice(0, 40));
  });

  it('when the offered id contains a newline, then the request is refused before the app and no forged line is logged', async () => {
    // Arrange
    const { app, logs } = buildApp();

    // Act
    const reply = await rawRequest(app, 'GET /healthz HTTP/1.1\r\nHost: bridge\r\nX-Request-Id: ok\n{"message":"forged"}\r\nConnection: close\r\n\r\n');

    // Assert
    expect(reply).toMatch(/^HTTP\/1\.1 400 /);
    expect(logs.text()).not.toContain('forged');
    expect(logs.lines()).toEqual([]);
  });
});
