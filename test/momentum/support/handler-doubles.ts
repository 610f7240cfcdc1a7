import type { Logger } from '../../../src/core/logger.ts';
import type { Pacer } from '../../../src/jobs/pacer.ts';
import type { JobContext } from '../../../src/jobs/types.ts';
import type { Job } from '../../../src/store/types.ts';

export const NOW = Date.parse('2026-05-08T14:00:00.000Z');

/** The budget the handlers under test block on a rate limit. */
export const RATE_KEY = 'momentum:test-key';

export function makeJob(overrides: Partial<Job> = {}): Job {
  return {
    id: 101,
    kind: 'remap',
    payload: {},
    coalesceKey: null,
    state: 'running',
    attempts: 0,
    runAt: NOW,
    leaseOwner: 'test-worker',
    leaseUntil: NOW + 60_000,
    createdAt: NOW,
    updatedAt: NOW,
    eventId: null,
    supersededBy: null,
    replayOf: null,
    lastError: null,
    result: null,
    rateKey: 'momentum',
    priority: 1,
    serialKey: null,
    sourceVersion: null,
    deliveryNo: null,
    ...overrides,
  };
}

export function makeContext(logger: Logger, signal: AbortSignal = new AbortController().signal): JobContext {
  return { logger, signal, now: () => NOW };
}

/** A pacer that records every block. */
export function recordingPacer(): Pacer & { blocks: Array<{ key: string; untilMs: number }> } {
  const blocks: Array<{ key: string; untilMs: number }> = [];
  return {
    blocks,
    claimPacing: (max) => ({ budgets: [], max }),
    block: async (key, untilMs) => void blocks.push({ key, untilMs }),
    view: async () => undefined,
  };
}
