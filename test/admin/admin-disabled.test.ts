import request from 'supertest';
import { expect, it } from 'vitest';

import { type EngineApp, startEngineApp } from '../support/app-harness.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { describeEachEngine } from '../support/stored-state.ts';

/*
 * No ADMIN_API_KEYS: the console page and the API say the admin API is disabled and which setting
 * turns it on, before anything asks for a key; the log has a warning naming it, never a stack.
 */

const cleanups = cleanupAfterEach();
const DISABLED = { error: { code: 'admin_disabled', message: 'admin API disabled: set ADMIN_API_KEYS' } };

async function appWithoutKeys(engine: 'sqlite' | 'postgres'): Promise<EngineApp> {
  const harness = await startEngineApp(engine, { env: { ADMIN_API_KEYS: '' } });
  cleanups.push(harness.close);
  return harness;
}

const warnings = (harness: EngineApp) => harness.logs.lines().filter((line) => line.message === 'request refused: not configured');

describeEachEngine('the admin API without ADMIN_API_KEYS', (engine) => {
  it('when the console is opened, then 503 says the admin API is disabled and how to enable it, instead of a page asking for a key', async () => {
    const harness = await appWithoutKeys(engine);

    const page = await request(harness.app).get('/admin/');

    expect(page.status).toBe(503);
    expect(page.body).toEqual(DISABLED);
    expect(page.text).not.toContain('<script');
    expect(warnings(harness)).toEqual([expect.objectContaining({ level: 'warn', code: 'admin_disabled', status: 503, reason: DISABLED.error.message })]);
  });

  it('when an API route is called with or without a key, then 503 before any key is asked for: no 401, no WWW-Authenticate, a warning without a stack', async () => {
    const harness = await appWithoutKeys(engine);

    const bare = await request(harness.app).get('/admin/refusals');
    const keyed = await request(harness.app).get('/admin/stats').set('X-API-Key', 'some-key-0123456789abcdef');

    for (const response of [bare, keyed]) {
      expect(response.status).toBe(503);
      expect(response.body).toEqual(DISABLED);
      expect(response.headers['www-authenticate']).toBeUndefined();
    }
    expect(warnings(harness)).toHaveLength(2);
    expect(harness.logs.text()).not.toContain('stack');
    expect(harness.logs.lines().filter((line) => line.level === 'error')).toEqual([]);
  });

  it('when the console assets are asked for, then they are still served (they hold no data)', async () => {
    const harness = await appWithoutKeys(engine);

    const script = await request(harness.app).get('/admin/assets/main.js');

    expect(script.status).toBe(200);
  });
});
