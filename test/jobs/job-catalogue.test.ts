import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import { JOB_CATALOGUE, JOB_KIND_NAMES } from '../../src/job-catalogue.ts';
import { createJobHandlers } from '../../src/job-handlers.ts';
import { defineJobKind } from '../../src/jobs/job-kind.ts';
import { mapEventJob, mapEventKind } from '../../src/mapping/map-event-job.ts';
import { importJob, remapKind } from '../../src/momentum/delivery-jobs.ts';
import { parseConfig } from '../../src/settings.ts';
import type { Job } from '../../src/store/types.ts';
import { testServiceAccountKey } from '../google/support/service-account-key.ts';
import { captureLogs } from '../support/log-capture.ts';

const storedJob = (kind: string, payload: unknown): Job => ({
  id: 7,
  kind,
  payload,
  coalesceKey: null,
  state: 'running',
  attempts: 0,
  runAt: 0,
  leaseOwner: 'test',
  leaseUntil: null,
  createdAt: 0,
  updatedAt: 0,
  eventId: null,
  supersededBy: null,
  replayOf: null,
  lastError: null,
  result: null,
  rateKey: null,
  priority: 1,
  serialKey: null,
  sourceVersion: null,
  deliveryNo: null,
});
const context = () => ({ logger: captureLogs().logger, signal: new AbortController().signal, now: () => 1_000 });

describe('the job catalogue', () => {
  it('when every integration is configured, then each catalogued kind has exactly one handler and no handler is outside the catalogue', async () => {
    const config = parseConfig({
      NODE_ENV: 'test',
      MOMENTUM_API_KEY: 'key',
      GOOGLE_SERVICE_ACCOUNT_KEY: testServiceAccountKey('https://oauth2.googleapis.com/token'),
      PUBLIC_BASE_URL: 'https://bridge.example.com',
      MICROSOFT_TENANT_ID: 'contoso.onmicrosoft.com',
      MICROSOFT_CLIENT_ID: '0f1e2d3c-aaaa-bbbb-cccc-ddddeeeeffff',
      MICROSOFT_CLIENT_SECRET: 'graph-secret',
      // Salesforce lookups, for the re-match sweep.
      SALESFORCE_CLIENT_ID: 'bridge-app',
      SALESFORCE_CLIENT_SECRET: 'right-secret',
    });
    const store = { ingest: async () => ({ created: [], duplicates: [] }), enqueue: async () => [], channels: {}, subscriptions: {}, matches: {} } as never;
    const handlers = await createJobHandlers(config, store, captureLogs().logger);
    try {
      expect([...handlers.registry.kinds()].sort()).toEqual([...JOB_KIND_NAMES].sort());
      expect(new Set(JOB_KIND_NAMES).size).toBe(JOB_CATALOGUE.length);
    } finally {
      await handlers.close();
    }
  });

  it('when a job is made through its kind, then it carries the kind name and the fields the kind derives from its payload', () => {
    const job = remapKind.job({
      request: { salesforceRecords: { opportunityId: '0068d0000101XyZAAU' }, source: { type: 'GOOGLE_CALENDAR', id: 'evt-1' } },
      flags: { triggerSummary: true, triggerAiSignals: false },
    });
    expect(job).toMatchObject({ kind: 'remap', coalesceKey: 'source:GOOGLE_CALENDAR:evt-1', rateKey: 'momentum' });
    expect(importJob({ meeting: { id: 'zoom-1' } })).toMatchObject({ kind: 'import', rateKey: 'momentum', priority: 1 });
    expect(mapEventJob({ id: 3, source: 'salesforce', parsedPayload: {} }, () => 'Event:00U8d000001AbCd')).toEqual({
      kind: 'map-event',
      payload: { eventId: 3 },
      eventId: 3,
      serialKey: 'salesforce:Event:00U8d000001AbCd',
    });
  });

  it('when a producer hands a kind the wrong payload, then it is a type error', () => {
    // @ts-expect-error eventId is a number
    const wrong = mapEventKind.job({ eventId: 'three' });
    // The type checker refused it; at run time the handler refuses it too (next test).
    expect(wrong.kind).toBe('map-event');
  });

  it('when a stored payload no longer fits its kind, then the handler is not called and the job ends dead naming the issue', async () => {
    let called = false;
    const kind = defineJobKind('example', z.object({ count: z.number() }));
    const handler = kind.handler(async () => ((called = true), { kind: 'succeeded' }));

    const result = await handler(storedJob('example', { count: 'many' }), context());

    expect(result).toMatchObject({ kind: 'final', state: 'dead', reason: expect.stringMatching(/^invalid example payload: count: /) });
    expect(called).toBe(false);
  });

  it('when a stored payload fits, then the handler gets it parsed with its defaults applied', async () => {
    let seen: unknown;
    const handler = remapKind.handler(async (payload) => ((seen = payload), { kind: 'succeeded' }));

    const request = { salesforceRecords: { accountId: '0018d0000101XyZAAU' }, source: { type: 'ZOOM', id: 'z-1' } };
    await handler(storedJob('remap', { request }), context());

    expect(seen).toEqual({ request, flags: { triggerSummary: false, triggerAiSignals: false } });
  });
});
