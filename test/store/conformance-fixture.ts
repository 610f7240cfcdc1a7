import type { ClaimPacing, InboundEvent, NewInboundMessage, NewJob, Store } from '../../src/store/types.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';

/** How the conformance suite gets databases from an engine: a fresh, empty one per test. */
export interface StoreHarness {
  engine: Store['engine'];
  /** A new empty database (file or schema). `open` may be called again to reopen the same one. */
  createDatabase(): Promise<TestDatabase>;
}

export interface TestDatabase {
  open(): Promise<Store>;
  /** Removes the database; called after the test, once its stores are closed. */
  dispose(): Promise<void>;
}

export interface Fixture {
  /** A store on a fresh database, plus `reopen` for a second store on the same one. */
  fresh(): Promise<{ store: Store; reopen: () => Promise<Store> }>;
}

/** Registers cleanup for the enclosing describe: every store opened is closed, every database disposed. */
export function useFixture(harness: StoreHarness): Fixture {
  const cleanups = cleanupAfterEach();
  const track = async (open: () => Promise<Store>) => {
    const store = await open();
    cleanups.push(() => store.close());
    return store;
  };
  return {
    async fresh() {
      const database = await harness.createDatabase();
      cleanups.push(() => database.dispose());
      const store = await track(() => database.open());
      return { store, reopen: () => track(() => database.open()) };
    },
  };
}

/** A fixed, past clock so tests decide what is due. */
export const T0 = 1_700_000_000_000;

let counter = 0;
/** A key unique within the run, so no two tests or calls collide by accident. */
export const uniqueKey = (prefix: string) => `${prefix}-${process.pid}-${++counter}`;

export function message(keys: string[], overrides: Partial<NewInboundMessage> = {}): NewInboundMessage {
  return {
    source: 'salesforce',
    senderId: '00D000000000001AAA',
    rawPayload: `<notifications>${keys.join(',')}</notifications>`,
    receivedAt: T0,
    events: keys.map((dedupeKey) => ({ dedupeKey, parsedPayload: { key: dedupeKey, fields: { Subject: 'Demo' } } })),
    ...overrides,
  };
}

/** jobsFor: one remap per event, coalesced per event key. */
export const oneRemapPerEvent = (event: InboundEvent): NewJob[] => [
  { kind: 'remap', payload: { dedupeKey: event.dedupeKey }, coalesceKey: `meeting:${event.dedupeKey}`, runAt: T0 },
];

export const job = (overrides: Partial<NewJob> = {}): NewJob => ({ kind: 'remap', payload: { n: ++counter }, runAt: T0, ...overrides });

/** Claims everything due at `now` for `owner` (a generous limit). */
export const claimAll = (store: Store, owner: string, now = T0 + 1000, leaseMs = 60_000) => store.claim({ owner, limit: 100, leaseMs, now });

/** The window of the call budgets the pacing parts use. */
export const WINDOW_MS = 60_000;

/** Pacing for one budget of `requests` calls a window. */
export const budget = (key: string, requests = 3): ClaimPacing => ({ budgets: [{ key, limit: { requests, windowMs: WINDOW_MS } }], max: 10 });

/** A claim under `pacing`, of up to `limit` jobs due at T0 + 1 s. */
export const claimPaced = (store: Store, owner: string, pacing: ClaimPacing, limit = 10) =>
  store.claim({ owner, limit, leaseMs: 60_000, now: T0 + 1000, pacing });
