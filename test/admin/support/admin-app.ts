import request from 'supertest';

import type { RateBucket } from '../../../src/admin/stats.ts';
import type { Store } from '../../../src/store/types.ts';
import { type EngineApp, startEngineApp } from '../../support/app-harness.ts';

export const KEY = 'admin-key-0123456789abcdef';
export const ROTATED_KEY = 'rotated-key-fedcba9876543210';

export interface AdminApp extends EngineApp {
  get(path: string, key?: string): request.Test;
  post(path: string, body?: unknown, key?: string): request.Test;
}

/**
 * The real app from createApp on a real SQLite store of its own, with two admin keys.
 * Failed-auth throttling is off unless a test sets it: tests send many wrong keys on purpose.
 */
export async function startAdminApp(options: { env?: Record<string, string>; momentumRate?: (store: Store) => RateBucket } = {}): Promise<AdminApp> {
  const { momentumRate } = options;
  const harness = await startEngineApp('sqlite', {
    env: { ADMIN_API_KEYS: `${KEY},${ROTATED_KEY}`, ADMIN_AUTH_FAILURE_LIMIT: 'off', ...options.env },
    ...(momentumRate ? { deps: (store: Store) => ({ momentumRate: momentumRate(store) }) } : {}),
  });
  return {
    ...harness,
    get: (urlPath, key = KEY) => request(harness.app).get(urlPath).set('Authorization', `Bearer ${key}`),
    post: (urlPath, body, key = KEY) => {
      const test = request(harness.app).post(urlPath).set('Authorization', `Bearer ${key}`);
      return body === undefined ? test : test.send(body as object);
    },
  };
}
