import { parseRetryAfter } from '../jobs/retry-policy.ts';

/**
 * One failed Google Calendar call, classified for its caller (docs/protocols.md §3, §6):
 * - `sync_token_invalid`: 410 Gone on an incremental list — drop the token, full sync;
 * - `retryable`: network, timeout, 429, 5xx, and the 403 rate-limit reasons Google also uses;
 * - `not_found`: 404 (a channel already gone, a calendar that does not exist);
 * - `final`: every other answer (401/403 after auth, 400…): retrying cannot help.
 */
export type GoogleErrorKind = 'sync_token_invalid' | 'retryable' | 'not_found' | 'final';

export class GoogleApiError extends Error {
  readonly kind: GoogleErrorKind;
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(kind: GoogleErrorKind, message: string, options: { status?: number; retryAfterMs?: number; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'GoogleApiError';
    this.kind = kind;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
  }
}

// Google answers quota errors with 403 and one of these reasons instead of 429.
const RATE_LIMIT_REASONS = new Set(['rateLimitExceeded', 'userRateLimitExceeded', 'quotaExceeded']);

function reasonsOf(body: string): { message: string; reasons: string[] } {
  try {
    const error = (JSON.parse(body) as { error?: { message?: unknown; errors?: Array<{ reason?: unknown }> } }).error;
    const reasons = (error?.errors ?? []).map((item) => item.reason).filter((reason): reason is string => typeof reason === 'string');
    return { message: typeof error?.message === 'string' ? error.message.slice(0, 300) : '', reasons };
  } catch {
    return { message: body.slice(0, 300), reasons: [] };
  }
}

export function classifyGoogleResponse(
  status: number,
  body: string,
  retryAfter: string | undefined,
  context: { what: string; incremental?: boolean; nowMs: number },
): GoogleApiError {
  const { message, reasons } = reasonsOf(body);
  const text = `${context.what}: HTTP ${status}${message ? ` ${message}` : ''}`;
  const retryAfterMs = parseRetryAfter(retryAfter, context.nowMs);
  if (status === 410 && context.incremental) return new GoogleApiError('sync_token_invalid', text, { status });
  if (status === 429 || status >= 500 || (status === 403 && reasons.some((reason) => RATE_LIMIT_REASONS.has(reason)))) {
    return new GoogleApiError('retryable', text, { status, retryAfterMs });
  }
  if (status === 404) return new GoogleApiError('not_found', text, { status });
  return new GoogleApiError('final', text, { status });
}
