import type { Logger } from '../core/logger.ts';
import type { Pacer } from '../jobs/pacer.ts';
import { MAX_RETRY_AFTER_MS, parseRetryAfter, SLOW_DOWN_MIN_DELAY_MS } from '../jobs/retry-policy.ts';
import type { HandlerResult } from '../jobs/types.ts';
import type { AttemptRecord } from '../store/types.ts';
import type { MomentumCallResult } from './client.ts';
import type { RateLimitHint } from './rate-limit-headers.ts';

/** Worth another try; every other non-2xx status is final. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 425, 429, 500, 502, 503, 504]);

export interface PacingDeps {
  /** The budgets; a job's call slot was taken when it was claimed, so handlers only report and block. */
  pacer?: Pacer;
  /** The budget: Momentum's limit is per API key over all endpoints, so remap and import share one. */
  rateKey: string;
}

/** A request that fails its own schema is dead at once and never sent; the attempt log says why. */
export function invalidRequest(issues: string, now: number): HandlerResult {
  const reason = `invalid_request: ${issues}`;
  return {
    kind: 'final',
    state: 'dead',
    reason,
    attempt: { startedAt: now, durationMs: 0, errorClass: 'invalid_request', responseExcerpt: reason.slice(0, 4096) },
  };
}

/**
 * A listing Momentum answered with a 2xx the bridge cannot read: asking again will not change it,
 * so the job ends dead with why, its call counted (it reached Momentum).
 */
export function listingProblem(handled: HandlerResult, problem: string, logger: Logger): HandlerResult {
  logger.warn('Momentum meeting listing unreadable', { problem });
  const reason = `unreadable listing: ${problem}`;
  const attempt = handled.attempt && { ...handled.attempt, errorClass: 'invalid_answer', responseExcerpt: reason.slice(0, 4096) };
  return { kind: 'final', state: 'dead', reason, ...(attempt ? { attempt } : {}), calledUpstream: true };
}

function attemptOf(result: MomentumCallResult): AttemptRecord {
  const base = { startedAt: result.startedAt, durationMs: result.durationMs };
  switch (result.kind) {
    case 'success':
      return { ...base, status: result.status, upstreamRequestId: result.requestId };
    case 'rejected':
      return { ...base, status: result.status, errorClass: 'rejected', responseExcerpt: result.excerpt, upstreamRequestId: result.requestId };
    case 'http_error':
      return {
        ...base,
        status: result.status,
        errorClass: `http_${Math.floor(result.status / 100)}xx`,
        responseExcerpt: result.excerpt,
        upstreamRequestId: result.requestId,
      };
    default:
      return { ...base, errorClass: result.kind, responseExcerpt: result.message };
  }
}

/**
 * Turns one call's outcome into what the worker needs. Every call counts against the budget, so
 * the result says it was made. A 429, or headers saying the budget is spent (someone else may use
 * the same API key), block the budget for every instance until it refills.
 */
export async function toHandlerResult(result: MomentumCallResult, pacing: PacingDeps, now: number): Promise<HandlerResult> {
  const handled = classify(result, now);
  const hint = result.kind === 'success' || result.kind === 'http_error' ? result.rateLimit : undefined;
  let blockUntil: number | undefined;
  if (result.kind === 'http_error' && result.status === 429) {
    // Nobody on this key may call until Retry-After (or 60 s), capped like the worker caps
    // Retry-After so a hostile header cannot stall the bridge for days.
    const retryAfterMs = parseRetryAfter(result.retryAfter, now);
    blockUntil = now + Math.min(retryAfterMs ?? hintDelay(hint) ?? SLOW_DOWN_MIN_DELAY_MS, MAX_RETRY_AFTER_MS);
  } else if (hint !== undefined && hint.remaining === 0 && hint.resetMs !== undefined && hint.resetMs > 0) {
    blockUntil = now + Math.min(hint.resetMs, MAX_RETRY_AFTER_MS);
  }
  if (blockUntil !== undefined) await pacing.pacer?.block(pacing.rateKey, blockUntil);
  return { ...handled, calledUpstream: true };
}

const hintDelay = (hint: RateLimitHint | undefined): number | undefined => (hint?.resetMs !== undefined && hint.resetMs > 0 ? hint.resetMs : undefined);

function classify(result: MomentumCallResult, now: number): HandlerResult {
  const attempt = attemptOf(result);
  switch (result.kind) {
    case 'success':
      return { kind: 'succeeded', result: { requestId: result.requestId, status: result.status }, attempt };
    case 'rejected':
      return { kind: 'final', state: 'dead', reason: `rejected: ${result.excerpt || 'accepted: false'}`, attempt };
    case 'timeout':
      // Svix (docs/protocols.md §6): a timeout waits at least 60 s: the upstream may be overloaded.
      return { kind: 'retryable', error: result.message, minDelayMs: SLOW_DOWN_MIN_DELAY_MS, attempt };
    case 'network':
    case 'aborted':
      return { kind: 'retryable', error: result.message, attempt };
    case 'http_error':
      break;
  }
  const summary = `HTTP ${result.status}${result.excerpt ? `: ${result.excerpt}` : ''}`;
  if (!RETRYABLE_STATUSES.has(result.status)) return { kind: 'final', state: 'dead', reason: summary, attempt };
  const retryAfterMs = parseRetryAfter(result.retryAfter, now);
  if (result.status !== 429) return { kind: 'retryable', error: summary, retryAfterMs, attempt };
  return { kind: 'retryable', error: summary, retryAfterMs, minDelayMs: SLOW_DOWN_MIN_DELAY_MS, attempt };
}
