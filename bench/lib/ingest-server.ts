import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import express from 'express';

import { OUTBOUND_MESSAGE_PATH } from '../../routes/salesforce.ts';
import { createApp } from '../../src/app.ts';
import { openInstrumentedStore } from '../../src/bridge.ts';
import { createLogger } from '../../src/core/logger.ts';
import { createHttpServer } from '../../src/http/http-server.ts';
import { ACK_ENVELOPE, SOAP_CONTENT_TYPE } from '../../src/salesforce/soap-replies.ts';
import { parseConfig } from '../../src/settings.ts';
import { ORG_ID } from '../../test/salesforce/support/outbound-message-builder.ts';
import { serveChild } from './child.ts';

/**
 * Child process entry of the ingest benchmark: one server per run, chosen by argv[2].
 * - `bridge`: the real app wired as startBridge wires it (metrics, slow-client limits) with the
 *   default durable SQLite store in argv[3]; no worker, so delivery does not compete with ingest
 *   for the one core this process gets.
 * - `bare-http` / `bare-express`: read the whole body and answer the same ack, storing nothing.
 */

const MAX_BODY = 2 * 1024 * 1024;

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function bareHttp(): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      // Same work as the route's body read: the full body in memory, decoded once.
      Buffer.concat(chunks).toString('utf8');
      res.writeHead(200, { 'content-type': SOAP_CONTENT_TYPE });
      res.end(ACK_ENVELOPE);
    });
  });
}

function bareExpress(): Server {
  const app = express();
  app.post(OUTBOUND_MESSAGE_PATH, express.raw({ type: () => true, limit: MAX_BODY }), (req, res) => {
    (req.body as Buffer).toString('utf8');
    res.status(200).type(SOAP_CONTENT_TYPE).send(ACK_ENVELOPE);
  });
  return createServer(app);
}

async function bridge(databaseFile: string): Promise<{ server: Server; close: () => Promise<void> }> {
  // The defaults an operator gets, plus the org the messages come from. The per-address inbound
  // rate limit is off: all load comes from one loopback address, while Salesforce sends from many.
  const config = parseConfig({
    DATABASE_URL: `sqlite:${databaseFile}`,
    SALESFORCE_ORG_IDS: ORG_ID,
    INBOUND_RATE_LIMIT: 'off',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
  });
  const logger = createLogger({ level: config.LOG_LEVEL });
  // The same HTTP wiring as startBridge (src/bridge.ts), minus the worker.
  const { store, telemetry } = await openInstrumentedStore(config, logger);
  const app = createApp({ config, logger, store, metrics: telemetry, readiness: [{ name: 'store', check: () => store.ping() }] });
  const server = createHttpServer(app, config);
  return { server, close: () => store.close() };
}

const mode = process.argv[2];
let server: Server;
let closeResources = async () => {};
if (mode === 'bare-http') server = bareHttp();
else if (mode === 'bare-express') server = bareExpress();
else if (mode === 'bridge') {
  const databaseFile = process.argv[3];
  if (!databaseFile) throw new Error(`${mode} mode needs the SQLite file path`);
  ({ server, close: closeResources } = await bridge(databaseFile));
} else throw new Error(`unknown ingest server mode ${String(mode)}`);

const url = await listen(server);
serveChild(
  url,
  async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await closeResources();
    return { maxRssBytes: process.resourceUsage().maxRSS * 1024 };
  },
  {
    // CPU time so far (user + system, all threads), read before and after the measured load.
    cpu: async () => {
      const { user, system } = process.cpuUsage();
      return { cpuMicros: user + system };
    },
  },
);
