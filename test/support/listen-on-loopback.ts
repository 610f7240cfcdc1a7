import { once } from 'node:events';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoopbackServer {
  server: Server;
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  port: number;
  /** Cuts open connections and resolves once the server is closed. */
  close: () => Promise<void>;
}

/**
 * Listens on loopback (fakes and apps under test never leave the machine) and resolves its address.
 * `port` 0 lets the kernel pick a free one; a restart passes the port it had. An express app or any
 * request listener gets a plain http server of its own.
 */
export async function listenOnLoopback(target: Server | RequestListener, port = 0): Promise<LoopbackServer> {
  const server = typeof target === 'function' ? createServer(target) : target;
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  const bound = (server.address() as AddressInfo).port;
  return { server, url: `http://127.0.0.1:${bound}`, port: bound, close: () => closeNow(server) };
}

/** Closes a server now: hung or held replies keep their sockets open, so they are cut first. */
export async function closeNow(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** A loopback port the kernel chose and that is free again: for an address needed before anything listens, or one that refuses. */
export async function freeLoopbackPort(): Promise<number> {
  const { port, close } = await listenOnLoopback(createServer());
  await close();
  return port;
}

export interface RestartableServer {
  /** Listens on a free loopback port (a new one at each start) and resolves the base URL. */
  start(): Promise<string>;
  /** The base URL of the last start ('' before the first). */
  readonly url: string;
  /** Closes it now if it is open; start() may follow (an outage, then a recovery). */
  close(): Promise<void>;
}

/** A fake's server that the test can stop and start again; every start serves `listener` on a fresh http server. */
export function restartableServer(listener: RequestListener): RestartableServer {
  let open: LoopbackServer | undefined;
  let url = '';
  return {
    async start() {
      open = await listenOnLoopback(listener);
      url = open.url;
      return url;
    },
    get url() {
      return url;
    },
    async close() {
      const closing = open;
      open = undefined;
      await closing?.close();
    },
  };
}
