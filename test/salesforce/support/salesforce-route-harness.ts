import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import request from 'supertest';
import { expect } from 'vitest';

import { createApp } from '../../../src/app.ts';
import { parseConfig } from '../../../src/core/config.ts';
import { openStore } from '../../../src/store/open-store.ts';
import type { Store } from '../../../src/store/types.ts';
import { captureLogs, type LogCapture } from '../../support/log-capture.ts';
import { storedCounts } from '../../support/stored-rows.ts';
import { readFault } from './soap-reply-reader.ts';

export const PATH = '/salesforce/outbound-message';
/** Configured as the 15-character form admins copy from Company Information. */
export const ALLOWED_ORG_15 = '00D8d0000001XyZ';

export interface Harness {
  app: ReturnType<typeof createApp>;
  store: Store;
  file: string;
  logs: LogCapture;
  post: (xml: string | Buffer, contentType?: string) => request.Test;
  close: () => Promise<void>;
}

export interface HarnessOptions {
  env?: Record<string, string>;
  /** Wraps the real store, e.g. to make ingest fail. */
  wrap?: (store: Store) => Store;
}

/** A real app on a real SQLite store in its own temporary directory. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const dir = mkdtempSync(path.join(tmpdir(), 'sf-route-'));
  const file = path.join(dir, 'bridge.db');
  const store = await openStore(`sqlite:${file}`);
  await store.migrate();
  const config = parseConfig({ NODE_ENV: 'test', LOG_LEVEL: 'debug', SALESFORCE_ORG_IDS: ALLOWED_ORG_15, ...options.env });
  const logs = captureLogs();
  const app = createApp({ config, logger: logs.logger, readiness: [], store: options.wrap ? options.wrap(store) : store });
  const post = (xml: string | Buffer, contentType = 'text/xml; charset=UTF-8') => {
    const test = request(app).post(PATH).set('SOAPAction', '""');
    if (contentType !== '') test.set('Content-Type', contentType);
    return test.send(xml);
  };
  return {
    app,
    store,
    file,
    logs,
    post,
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Proxies a store whose ingest rejects while `failing()` is true (methods stay bound to the real store). */
export function withFailingIngest(store: Store, failing: () => boolean): Store {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'ingest' && failing()) return () => Promise.reject(new Error('disk I/O error'));
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** A refusal: the status, an XML SOAP fault with the code and exact text, nothing stored, process healthy. */
export async function expectRefused(
  harness: Harness,
  response: request.Response,
  expected: { status: number; faultcode: 'soapenv:Client' | 'soapenv:Server'; faultstring: string | RegExp },
): Promise<void> {
  expect(response.status).toBe(expected.status);
  expect(response.headers['content-type']).toBe('text/xml; charset=utf-8');
  expect(response.text.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
  expect(response.text).not.toContain('<Ack>');
  const fault = readFault(response.text);
  expect(fault?.faultcode).toBe(expected.faultcode);
  if (typeof expected.faultstring === 'string') expect(fault?.faultstring).toBe(expected.faultstring);
  else expect(fault?.faultstring).toMatch(expected.faultstring);
  expect(storedCounts(harness.file)).toEqual({ messages: 0, events: 0, jobs: 0 });
  const health = await request(harness.app).get('/healthz');
  expect(health.status).toBe(200);
}
