import type { HandlerResult } from '../jobs/types.ts';

/** What a calendar provider's API error says, for the sync job's outcome. */
export interface ProviderFailure {
  message: string;
  status: number | undefined;
  retryAfterMs: number | undefined;
  /** Worth another try (network, 429, 5xx, an expired sync state); otherwise the job ends dead. */
  retryable: boolean;
  /** `google_retryable`, `graph_not_found`…: the provider and its error kind, for the attempt log. */
  errorClass: string;
  /** A floor under the next try (Google's 429 asks for a minute at least). */
  minDelayMs?: number;
}

/** A failed calendar sync → the job's result: retried on the worker's schedule (honouring Retry-After) or dead with the reason. */
export function syncFailure(failure: ProviderFailure, startedAt: number, now: number): HandlerResult {
  const attempt = {
    startedAt,
    durationMs: now - startedAt,
    ...(failure.status === undefined ? {} : { status: failure.status }),
    errorClass: failure.errorClass,
    responseExcerpt: failure.message.slice(0, 4096),
  };
  if (!failure.retryable) return { kind: 'final', state: 'dead', reason: failure.message, attempt };
  return {
    kind: 'retryable',
    error: failure.message,
    attempt,
    ...(failure.retryAfterMs === undefined ? {} : { retryAfterMs: failure.retryAfterMs }),
    ...(failure.minDelayMs === undefined ? {} : { minDelayMs: failure.minDelayMs }),
  };
}
