import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import request from 'supertest';

import type { RateBucket } from '../../../src/admin/stats.ts';
import { createApp } from '../../../src/app.ts';
import { type Config, parseConfig, secretValues } from '../../../src/core/config.ts';
import { openStore } from '../../../src/store/open-store.ts';
import type { Store } from '../../../src/store/types.ts';
import { captureLogs, type LogCapture } from '../../support/log-capture.ts';

export const KEY = 'admin-key-0123456789abcdef';
export const ROTATED_KEY = 'rotated-key-fedcba9876543210';

export interface AdminApp {
  app: ReturnType<typeof createApp>;
  store: Store;
  config: Config;
  logs: LogCapture;
  get(path: string, key?: string): request.Test;
  post(path: string, body?: unknown, key?: string): request.Test;
  close(): Promise<void>;
}

/**
 * The real app from createApp on a real SQLite store in its own directory, with two admin keys.
 * Failed-auth throttling is off unless a test sets it: tests send many wrong keys on purpose.
 */
export async function startAdminApp(options: { env?: Record<string, string>; momentumRate?: (store: Store) => RateBucket } = {}): Promise<AdminApp> {
  const dir = mkdtempSync(path.join(tmpdir(), 'admin-api-'));
  const store = await openStore(`sqlite:${path.join(dir, 'bridge.db')}`);
  const config = parseConfig({ NODE_ENV: 'test', ADMIN_API_KEYS: `${KEY},${ROTATED_KEY}`, ADMIN_AUTH_FAILURE_LIMIT: 'off', ...options.env });
  const logs = captureLogs({ secrets: secretValues(config) });
  const app = createApp({ config, logger: logs.logger, readiness: [], store, ...(options.momentumRate ? { momentumRate: options.momentumRate(store) } : {}) });
  return {
    app,
    store,
    config,
    logs,
    get: (urlPath, key = KEY) => request(app).get(urlPath).set('Authorization', `Bearer ${key}`),
    post: (urlPath, body, key = KEY) => {
      const test = request(app).post(urlPath).set('Authorization', `Bearer ${key}`);
      return body === undefined ? test : test.send(body as object);
    },
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
