import request from 'supertest';
import { expect } from 'vitest';

import type { Store } from '../../../src/store/types.ts';
import { type EngineApp, startEngineApp } from '../../support/app-harness.ts';
import { storedCounts } from '../../support/stored-rows.ts';
import { readFault } from './soap-reply-reader.ts';

export const PATH = '/salesforce/outbound-message';
/** Configured as the 15-character form admins copy from Company Information. */
export const ALLOWED_ORG_15 = '00D8d0000001XyZ';

export interface Harness extends EngineApp {
  file: string;
  post: (xml: string | Buffer, contentType?: string) => request.Test;
}

export interface HarnessOptions {
  env?: Record<string, string>;
  /** Wraps the real store, e.g. to make ingest fail. */
  wrap?: (store: Store) => Store;
}

/** The real app on a real SQLite store of its own, the org allowed, and a post() like Salesforce's. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const harness = await startEngineApp('sqlite', {
    env: { SALESFORCE_ORG_IDS: ALLOWED_ORG_15, ...options.env },
    ...(options.wrap ? { wrap: options.wrap } : {}),
  });
  const post = (xml: string | Buffer, contentType = 'text/xml; charset=UTF-8') => {
    const test = request(harness.app).post(PATH).set('SOAPAction', '""');
    if (contentType !== '') test.set('Content-Type', contentType);
    return test.send(xml);
  };
  return { ...harness, file: harness.file!, post };
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
