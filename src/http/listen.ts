import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { type Config, ConfigError } from '../core/config.ts';

/** Why the server could not listen where PORT and HOST say, in one line naming the setting; undefined for any other error. */
export function listenProblem(error: unknown, config: Pick<Config, 'PORT' | 'HOST'>): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  const { PORT: port, HOST: host } = config;
  switch (code) {
    case 'EADDRINUSE':
      return `PORT: ${port} is already in use on ${host} (another process listens there)`;
    case 'EACCES':
    case 'EPERM':
      return `PORT: ${port} may not be opened by this process (ports below 1024 need a privilege on most systems)`;
    case 'EADDRNOTAVAIL':
      return `HOST: ${host} is not an address of this machine`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `HOST: ${host} could not be resolved`;
    default:
      return undefined;
  }
}

/** Listens on PORT and HOST; resolves with the port taken (PORT=0 lets the kernel pick), rejects with a ConfigError when it cannot. */
export async function listen(server: Server, config: Pick<Config, 'PORT' | 'HOST'>): Promise<number> {
  server.listen(config.PORT, config.HOST);
  try {
    await once(server, 'listening');
  } catch (error) {
    const problem = listenProblem(error, config);
    throw problem === undefined ? error : new ConfigError([problem], { cause: error });
  }
  return (server.address() as AddressInfo).port;
}
