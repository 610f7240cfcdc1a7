import { afterEach, beforeEach } from 'vitest';

import { createMomentumClient, type MomentumClient } from '../../../src/momentum/client.ts';
import { createRemapHandler } from '../../../src/momentum/delivery-handlers.ts';
import { remapCoalesceKey } from '../../../src/momentum/remap-coalesce-key.ts';
import type { RemapDeliveryPayload } from '../../../src/momentum/schemas.ts';
import type { Store } from '../../../src/store/types.ts';
import { type FakeMomentum, startFakeMomentum } from '../../fakes/fake-momentum.ts';
import { captureLogs } from '../../support/log-capture.ts';
import { openRealStore } from '../../support/real-store.ts';
import { makeContext, RATE_KEY, recordingPacer } from './handler-doubles.ts';
import { spyLastSucceeded } from './stored-jobs.ts';

/** What the remap handler's tests share: one remap payload, its meeting key, and per test a fake Momentum, a client and a real store. */

export const payload: RemapDeliveryPayload = {
  request: { source: { id: 'evt-1', type: 'GOOGLE_CALENDAR' }, salesforceRecords: { opportunityId: '0065w000023STAmAAO' } },
  flags: { triggerSummary: true, triggerAiSignals: false },
};
export const KEY = remapCoalesceKey(payload.request);

export interface RemapHandlerWorld {
  readonly fake: FakeMomentum;
  /** A client of the fake with a 2 s timeout. */
  readonly client: MomentumClient;
  readonly realStore: Store;
  /** A remap handler with captured logs, a recording pacer and a store that records its lookups. */
  setup(options?: { timeoutMs?: number }): ReturnType<typeof handlerSetup>;
}

function handlerSetup(fake: FakeMomentum, client: MomentumClient, realStore: Store, options: { timeoutMs?: number }) {
  const { logger, lines } = captureLogs();
  const limiter = recordingPacer();
  const store = spyLastSucceeded(realStore);
  const handlerClient =
    options.timeoutMs === undefined
      ? client
      : createMomentumClient({ apiBaseUrl: fake.url, receiverUrl: fake.url, importPath: '/x', apiKey: 'k-123456', timeoutMs: options.timeoutMs });
  const handler = createRemapHandler({ client: handlerClient, store, pacer: limiter, rateKey: RATE_KEY, logger });
  return { handler, limiter, store, lines, context: makeContext(logger), done: () => (handlerClient === client ? undefined : handlerClient.close()) };
}

/** Registers, for the enclosing describe, a fresh fake Momentum, client and store per test, closed after it. */
export function useRemapHandlerWorld(): RemapHandlerWorld {
  let fake: FakeMomentum;
  let client: MomentumClient;
  let realStore: Store;
  let cleanupStore: () => Promise<void>;

  beforeEach(async () => {
    fake = await startFakeMomentum();
    client = createMomentumClient({ apiBaseUrl: fake.url, receiverUrl: fake.url, importPath: '/user-provided-meeting', apiKey: 'k-123456', timeoutMs: 2_000 });
    ({ store: realStore, close: cleanupStore } = await openRealStore());
  });
  afterEach(async () => {
    await client.close();
    await fake.close();
    await cleanupStore();
  });

  return {
    get fake() {
      return fake;
    },
    get client() {
      return client;
    },
    get realStore() {
      return realStore;
    },
    setup: (options = {}) => handlerSetup(fake, client, realStore, options),
  };
}
