import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { parseConfig } from '../../src/config.ts';
import { AppError } from '../../src/errors.ts';
import { parseOutboundMessage } from '../../src/ingest/soap-parser.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/types.ts';
import { storedCounts } from '../ingest/sqlite-counts.ts';
import { captureLogs, type LogCapture } from '../support/log-capture.ts';
import { reportSummary } from './support/bridge-env.ts';
import { postRaw } from './support/raw-post.ts';
import { headersFor, hostileDelivery, isAcceptable, SECRET } from './support/calendar-deliveries.ts';
import { hostileXml, notXml } from './support/xml-mutations.ts';

// An org none of the seeds comes from: every message the parser accepts is still refused (403), so
// no hostile input may ever be stored. A second app allows the seeds' org (see the last SOAP test).
const OTHER_ORG = '00D0000000FUZZQ';
const SEED_ORG = '00D8d0000001XyZ';
const PARSE_CODES = new Set(['invalid_xml', 'xml_dtd_refused', 'invalid_soap']);
// Mostly what Salesforce sends, sometimes what it never would.
const contentTypes = fc.oneof(
  { arbitrary: fc.constant('text/xml; charset=UTF-8'), weight: 8 },
  { arbitrary: fc.constantFrom('text/xml', 'application/soap+xml', 'application/json', 'text/xml; charset=ISO-8859-1'), weight: 2 },
);

interface Target {
  url: string;
  file: string;
  logs: LogCapture;
  close: () => Promise<void>;
}

/** The real app from createApp on its own SQLite file, listening on loopback; rate limits off (one client sends thousands). */
async function startTarget(orgId: string): Promise<Target> {
  const dir = mkdtempSync(path.join(tmpdir(), 'reliability-fuzz-'));
  const file = path.join(dir, 'bridge.db');
  const store: Store = await openStore(`sqlite:${file}`);
  const config = parseConfig({ NODE_ENV: 'test', SALESFORCE_ORG_IDS: orgId, CALENDAR_WEBHOOK_SECRETS: SECRET, INBOUND_RATE_LIMIT: 'off' });
  const logs = captureLogs({ level: 'error' });
  const server: Server = createApp({ config, logger: logs.logger, readiness: [], store }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    file,
    logs,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const MAX_BODY = 2 * 1024 * 1024; // SALESFORCE_MAX_BODY's default

/**
 * Posts like Salesforce. A body over the limit may be answered 413 before it is fully sent, and the
 * socket closed under the rest: a reset is then an acceptable refusal, for that body only.
 */
async function postSoap(url: string, body: Buffer, contentType = 'text/xml; charset=UTF-8') {
  const reply = await postRaw(url, '/salesforce/outbound-message', { 'content-type': contentType, soapaction: '""' }, body);
  if (reply.kind === 'reset') {
    expect(body.length).toBeGreaterThan(MAX_BODY);
    return { status: 413, contentType: 'text/xml; charset=utf-8', text: '<faultcode>soapenv:Client</faultcode> (connection cut)', reset: true };
  }
  return { ...reply, reset: false };
}

/** What the parser does with `xml`: a message, or the 400 refusal it throws; anything else is a bug. */
function parseOutcome(xml: string): 'parsed' | 'refused' {
  try {
    const message = parseOutboundMessage(xml);
    const values = [message.organizationId, message.actionId, ...message.notifications.flatMap((n) => [n.id, n.sObjectType, ...Object.values(n.fields)])];
    if (!values.every((value) => typeof value === 'string')) throw new Error('parser returned a non-string value');
    if (message.notifications.length < 1 || message.notifications.length > 100) throw new Error('parser returned 0 or more than 100 notifications');
    return 'parsed';
  } catch (error) {
    if (error instanceof AppError && error.status === 400 && PARSE_CODES.has(error.code)) return 'refused';
    throw error;
  }
}

describe('reliability: hostile input', () => {
  const statuses = new Map<string, number>();
  const count = (key: string) => statuses.set(key, (statuses.get(key) ?? 0) + 1);
  let refusing: Target;
  let accepting: Target;
  beforeAll(async () => {
    refusing = await startTarget(OTHER_ORG);
    accepting = await startTarget(SEED_ORG);
  });
  afterAll(async () => {
    await refusing.close();
    await accepting.close();
    reportSummary('hostile-input', Object.fromEntries([...statuses].sort()));
  });

  it('when the SOAP parser gets thousands of mutated messages, then it returns all-string messages or throws its 400 parse error, nothing else', () => {
    fc.assert(
      fc.property(hostileXml, (body) => {
        count(`parser:${parseOutcome(body.toString('utf8'))}`);
      }),
      { numRuns: 3000 },
    );
  });

  it('when mutated and non-XML bodies are posted to the Salesforce route, then every answer is a SOAP 4xx, nothing is stored and the app stays healthy', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof({ arbitrary: hostileXml, weight: 4 }, { arbitrary: notXml, weight: 1 }), contentTypes, async (body, contentType) => {
        const response = await postSoap(refusing.url, body, contentType);
        count(`salesforce:${response.reset ? 'cut-oversize' : response.status}`);
        expect([400, 403, 413, 415]).toContain(response.status);
        expect(response.contentType).toBe('text/xml; charset=utf-8');
        expect(response.text).toContain('<faultcode>soapenv:Client</faultcode>');
        expect(storedCounts(refusing.file)).toEqual({ messages: 0, events: 0, jobs: 0 });
      }),
      { numRuns: 1500 },
    );
    expect((await fetch(`${refusing.url}/healthz`)).status).toBe(200);
    expect(refusing.logs.lines()).toEqual([]);
  });

  it('when mutated messages come from an allowed org, then only those the parser accepts are acked and stored; every other one stores nothing', async () => {
    await fc.assert(
      fc.asyncProperty(hostileXml, async (body) => {
        const before = storedCounts(accepting.file);
        const response = await postSoap(accepting.url, body);
        count(`salesforce-allowed:${response.reset ? 'cut-oversize' : response.status}`);
        const after = storedCounts(accepting.file);
        const decodable = Buffer.from(body.toString('utf8'), 'utf8').equals(body);
        if (response.status === 200) {
          expect(decodable && parseOutcome(body.toString('utf8'))).toBe('parsed');
          expect(after.messages).toBe(before.messages + 1);
        } else {
          // 403: a seed from another org (foreign-org.xml) that survived its mutations.
          expect([400, 403, 413]).toContain(response.status);
          expect(after).toEqual(before);
        }
      }),
      { numRuns: 500 },
    );
    expect((await fetch(`${accepting.url}/healthz`)).status).toBe(200);
    expect(accepting.logs.lines()).toEqual([]);
  });

  it('when random, mutated, unsigned, forged and stale deliveries hit POST /calendar/events, then only correctly signed valid events are stored and nothing gets a 5xx', async () => {
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(hostileDelivery, async (plan) => {
        const before = storedCounts(refusing.file);
        sent += 1;
        const response = await fetch(`${refusing.url}/calendar/events`, { method: 'POST', headers: headersFor(plan, `fuzz_${sent}`, Date.now()), body: new Uint8Array(plan.body) });
        const reply = (await response.json()) as { error?: { code?: unknown } };
        count(`calendar:${response.status}`);
        const after = storedCounts(refusing.file);
        if (isAcceptable(plan)) {
          expect(response.status).toBe(202);
          expect(after.events).toBe(before.events + 1);
        } else {
          expect([400, 401, 413, 415]).toContain(response.status);
          expect(typeof reply.error?.code).toBe('string');
          expect(after).toEqual(before);
        }
      }),
      { numRuns: 1500 },
    );
    expect((await fetch(`${refusing.url}/healthz`)).status).toBe(200);
    expect(refusing.logs.lines()).toEqual([]);
  });
});
