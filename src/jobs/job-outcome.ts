import type { JobOutcome } from '../store/types.ts';
import { nextRetry } from './retry-policy.ts';
import type { HandlerResult } from './types.ts';

export interface OutcomeOptions {
  /** 1-based number of the attempt this result belongs to. */
  attempt: number;
  retrySchedule: readonly number[];
  now: number;
  random: () => number;
}

/**
 * Turns what a handler reported into what the store records. The worker owns the schedule,
 * so a retryable failure past the last step becomes `dead` here, with the last error as reason.
 */
export function toJobOutcome(result: HandlerResult, options: OutcomeOptions): JobOutcome {
  switch (result.kind) {
    case 'succeeded':
      return { state: 'succeeded', ...(result.result === undefined ? {} : { result: result.result }) };
    case 'final':
      return { state: result.state, reason: result.reason, ...(result.result === undefined ? {} : { result: result.result }) };
    case 'deferred':
      return { state: 'deferred', runAt: result.runAt };
    case 'retryable': {
      const decision = nextRetry(
        options.retrySchedule,
        { attempt: options.attempt, retryAfterMs: result.retryAfterMs, minDelayMs: result.minDelayMs },
        options.random,
      );
      if (!decision.retry) return { state: 'dead', reason: `gave up after ${options.attempt} attempts: ${result.error}` };
      return { state: 'retry', runAt: options.now + decision.delayMs, error: result.error };
    }
  }
}
