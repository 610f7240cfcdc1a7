import type { HandlerResult } from '../jobs/types.ts';

/**
 * Runs the work that follows a meetings-list call Momentum answered (storing what it listed,
 * settling read-backs). Should that work fail, the job is retried, and the call still counts: it
 * reached Momentum, so its slot in the 100-calls-per-15-minutes budget is kept, not given back
 * (docs/delivery.md, pacing); a store failing over and over would otherwise let the retries call
 * past the limit.
 */
export async function afterListing(work: () => Promise<HandlerResult>): Promise<HandlerResult> {
  try {
    return await work();
  } catch (error) {
    return { kind: 'retryable', error: `the listed page could not be stored: ${(error as Error).message}`, calledUpstream: true };
  }
}
