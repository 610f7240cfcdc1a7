import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.ts';
import type { Config } from './config.ts';
import { closeGracefully } from './http/graceful-close.ts';
import type { Logger } from './logger.ts';

export interface RunningBridge {
  server: Server;
  url: string;
  /** Graceful stop: no new requests, in-flight ones finish within the deadline, resources closed. */
  stop: () => Promise<void>;
}

/** Opens every resource the config names, wires the app and listens. */
export async function startBridge(config: Config, logger: Logger): Promise<RunningBridge> {
  const app = createApp({ config, logger, readiness: [] });
  const server = app.listen(config.PORT, config.HOST);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  // A wildcard address is not one a client can dial; an IPv6 literal needs brackets in a URL.
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  const url = `http://${host}:${port}`;

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await closeGracefully(server, config.SHUTDOWN_TIMEOUT_MS);
    })());
  return { server, url, stop };
}
