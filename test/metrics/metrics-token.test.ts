import request from 'supertest';
import { describe, expect, it } from 'vitest';

import { createApp } from '../../src/app.ts';
import { createPrometheusMetrics } from '../../src/metrics/prometheus-metrics.ts';
import { parseConfig } from '../../src/settings.ts';
import { captureLogs } from '../support/log-capture.ts';

const TOKEN = 'scrape-token-0123456789abcdef';

function appWith(env: Record<string, string>) {
  const config = parseConfig({ NODE_ENV: 'test', ...env });
  const logs = captureLogs();
  const metrics = createPrometheusMetrics({ logger: logs.logger });
  return { app: createApp({ config, logger: logs.logger, readiness: [], metrics }), logs };
}

describe('GET /metrics with METRICS_TOKEN', () => {
  it('when no token is sent, then 401 with a Bearer challenge and no metrics in the body', async () => {
    const { app } = appWith({ METRICS_TOKEN: TOKEN });

    const response = await request(app).get('/metrics');

    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    expect(response.body).toEqual({ error: { code: 'unauthorized', message: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>' } });
    expect(response.text).not.toContain('bridge_');
  });

  it.each([
    ['a wrong token', `Bearer ${TOKEN}x`],
    ['the token without the Bearer scheme', TOKEN],
    ['another scheme', `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}`],
  ])('when %s is sent, then 401', async (_case, authorization) => {
    const { app } = appWith({ METRICS_TOKEN: TOKEN });

    const response = await request(app).get('/metrics').set('Authorization', authorization);

    expect(response.status).toBe(401);
    expect(response.text).not.toContain('bridge_');
  });

  it('when the right token is sent, then 200 with the metrics, and the token never reaches the log', async () => {
    const { app, logs } = appWith({ METRICS_TOKEN: TOKEN });

    const response = await request(app).get('/metrics').set('Authorization', `Bearer ${TOKEN}`);

    expect(response.status).toBe(200);
    expect(response.text).toContain('# TYPE bridge_jobs_enqueued_total counter');
    expect(logs.text()).not.toContain(TOKEN);
  });

  it('when METRICS_TOKEN is not set, then the metrics are open', async () => {
    const { app } = appWith({});

    const response = await request(app).get('/metrics');

    expect(response.status).toBe(200);
    expect(response.text).toContain('# TYPE bridge_inbound_messages_total counter');
  });

  it('when one address keeps guessing past ADMIN_AUTH_FAILURE_LIMIT, then it gets 429 with Retry-After, even with the right token, while good scrapes never count', async () => {
    const { app } = appWith({ METRICS_TOKEN: TOKEN, ADMIN_AUTH_FAILURE_LIMIT: '2/15m' });
    const good = () => request(app).get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
    const bad = () => request(app).get('/metrics').set('Authorization', 'Bearer guess');

    const goodStatuses = [];
    for (let i = 0; i < 4; i += 1) goodStatuses.push((await good()).status);
    const guesses = [(await bad()).status, (await bad()).status];
    const third = await bad();
    const afterwards = await good();

    expect(goodStatuses).toEqual([200, 200, 200, 200]);
    expect(guesses).toEqual([401, 401]);
    expect(third.status).toBe(429);
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(third.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
    expect(third.body.error.code).toBe('too_many_auth_failures');
    expect(afterwards.status).toBe(429);
  });
});
