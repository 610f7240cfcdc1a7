import { describe, expect, it } from 'vitest';

import { createGraphClient } from '../../src/microsoft/graph-client.ts';
import { createMicrosoftRuntime, graphScope } from '../../src/microsoft/microsoft-runtime.ts';
import { createSubscriptionManager } from '../../src/microsoft/subscriptions.ts';
import { ConfigError, parseConfig } from '../../src/settings.ts';
import type { GraphSubscription, SubscriptionStore } from '../../src/store/subscription-store.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { captureLogs } from '../support/log-capture.ts';
import { ANA, CLIENT_ID, CLIENT_SECRET, fakeMicrosoft, freePort, TENANT, validationReceiver } from './support/ms-bridge.ts';

const cleanups = cleanupAfterEach();

const deps = () => ({
  store: { ingest: async () => ({ created: [], duplicates: [] }), enqueue: async () => [] },
  subscriptions: {} as SubscriptionStore,
  leases: { tryLease: async () => true, releaseLease: async () => {} },
  logger: captureLogs().logger,
});

describe('createMicrosoftRuntime', () => {
  it('when no Microsoft credential is set, then Microsoft is off, leaving the saying so to the start line per integration', () => {
    const logs = captureLogs();
    expect(createMicrosoftRuntime(parseConfig({}), { ...deps(), logger: logs.logger })).toBeUndefined();
    expect(logs.lines()).toEqual([]);
  });

  it.each([
    [{ MICROSOFT_CLIENT_ID: CLIENT_ID, MICROSOFT_CLIENT_SECRET: 's', PUBLIC_BASE_URL: 'https://b.example.com' }, /MICROSOFT_TENANT_ID: required/],
    [
      { MICROSOFT_TENANT_ID: TENANT, MICROSOFT_CLIENT_ID: CLIENT_ID, PUBLIC_BASE_URL: 'https://b.example.com' },
      /MICROSOFT_CLIENT_SECRET: set it or MICROSOFT_CLIENT_CERTIFICATE_FILE/,
    ],
    [{ MICROSOFT_TENANT_ID: TENANT, MICROSOFT_CLIENT_ID: CLIENT_ID, MICROSOFT_CLIENT_SECRET: 's' }, /PUBLIC_BASE_URL: required/],
    [{ MICROSOFT_CALENDAR_USERS: ANA }, /MICROSOFT_CALENDAR_USERS: needs MICROSOFT_TENANT_ID/],
    [
      {
        MICROSOFT_TENANT_ID: TENANT,
        MICROSOFT_CLIENT_ID: CLIENT_ID,
        MICROSOFT_CLIENT_SECRET: 's',
        PUBLIC_BASE_URL: 'https://b.example.com',
        MICROSOFT_SUBSCRIPTION_TTL: '8d',
      },
      /MICROSOFT_SUBSCRIPTION_TTL: Graph keeps event subscriptions at most 10080 minutes/,
    ],
    [
      {
        MICROSOFT_TENANT_ID: TENANT,
        MICROSOFT_CLIENT_ID: CLIENT_ID,
        MICROSOFT_CLIENT_CERTIFICATE_FILE: '/nonexistent/app.pem',
        PUBLIC_BASE_URL: 'https://b.example.com',
      },
      /MICROSOFT_CLIENT_CERTIFICATE_FILE: cannot be read/,
    ],
  ])('when the credentials are half set (%j), then the start stops naming what is missing', (env, message) => {
    expect(() => createMicrosoftRuntime(parseConfig(env), deps())).toThrow(ConfigError);
    expect(() => createMicrosoftRuntime(parseConfig(env), deps())).toThrow(message);
  });

  it("when Graph is a national cloud's, then the token is for that cloud's Graph; any other host means the global one", () => {
    expect(graphScope('https://graph.microsoft.com/v1.0')).toBe('https://graph.microsoft.com/.default');
    expect(graphScope('https://graph.microsoft.us/v1.0')).toBe('https://graph.microsoft.us/.default');
    expect(graphScope('https://microsoftgraph.chinacloudapi.cn/v1.0')).toBe('https://microsoftgraph.chinacloudapi.cn/.default');
    expect(graphScope('http://127.0.0.1:4000/v1.0')).toBe('https://graph.microsoft.com/.default');
  });
});

describe('the Graph client against the fake Graph', () => {
  async function client(options: { latencyMs?: number } = {}) {
    const microsoft = await fakeMicrosoft(options);
    cleanups.push(microsoft.close);
    const { createGraphAuth } = await import('../../src/microsoft/graph-auth.ts');
    const auth = createGraphAuth({
      loginUrl: microsoft.loginUrl,
      tenantId: TENANT,
      clientId: CLIENT_ID,
      credential: { kind: 'secret', secret: CLIENT_SECRET },
      scope: 'https://graph.microsoft.com/.default',
      logger: captureLogs().logger,
    });
    const graph = createGraphClient({ baseUrl: microsoft.graphUrl, accessToken: () => auth.accessToken(), pageSize: 1 });
    cleanups.push(
      () => graph.close(),
      () => auth.close(),
    );
    return { microsoft, graph };
  }

  it('when many delta requests for one mailbox are made at once, then at most four are in flight at Graph', async () => {
    const { microsoft, graph } = await client({ latencyMs: 50 });
    const window = { start: '2026-01-01T00:00:00Z', end: '2027-01-01T00:00:00Z' };

    await Promise.all(Array.from({ length: 12 }, () => graph.delta(ANA, { window })));

    expect(microsoft.requestsOf('delta')).toHaveLength(12);
    expect(microsoft.maxConcurrentRequests(ANA)).toBeLessThanOrEqual(4);
    expect(microsoft.maxConcurrentRequests(ANA)).toBeGreaterThan(1);
  });

  it('when a link points at another host, then it is not followed', async () => {
    const { microsoft, graph } = await client();

    await expect(graph.delta(ANA, { link: 'https://evil.example.com/v1.0/users/x/calendarView/delta?$deltatoken=1' })).rejects.toThrow(
      /refusing to follow a link/,
    );
    expect(microsoft.requestsOf('delta')).toHaveLength(0);
  });

  it('when a renewal is answered 404, then the subscription is recreated', async () => {
    const { microsoft, graph } = await client();
    const port = await freePort();
    const receiver = await validationReceiver(port);
    cleanups.push(receiver.close);
    const saved: GraphSubscription[] = [];
    const store = {
      saveSubscription: async (subscription: GraphSubscription) => void saved.push(subscription),
      removeSubscription: async (id: string) =>
        void saved.splice(
          saved.findIndex((item) => item.id === id),
          1,
        ),
      extendSubscription: async () => {},
      recordMailboxOutcome: async () => {},
    } as unknown as SubscriptionStore;
    const enqueued: unknown[] = [];
    const manager = createSubscriptionManager({
      store,
      client: graph,
      jobs: { enqueue: async (jobs) => (enqueued.push(...jobs), []) },
      publicBaseUrl: `http://127.0.0.1:${port}`,
      ttlMs: 86_400_000,
      logger: captureLogs().logger,
    });
    const gone: GraphSubscription = {
      id: 'gone-at-graph',
      userId: ANA,
      clientState: 'x',
      expiration: Date.now() + 1000,
      createdAt: 0,
      renewedAt: null,
      removedAt: null,
    };

    const outcome = await manager.reauthorize(gone);

    expect(outcome).toBe('recreated');
    expect(microsoft.requestsOf('renew').map((request) => request.status)).toEqual([404]);
    expect(microsoft.requestsOf('create').map((request) => request.status)).toEqual([201]);
    expect(saved).toEqual([expect.objectContaining({ userId: ANA, removedAt: null })]);
    expect(saved[0]?.id).not.toBe('gone-at-graph');
    expect(enqueued).toEqual([expect.objectContaining({ kind: 'microsoft-sync', payload: { userId: ANA, trigger: 'subscribed' } })]);
  });
});
