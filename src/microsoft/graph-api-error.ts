import { storableText } from '../core/storable.ts';
import { parseRetryAfter } from '../jobs/retry-policy.ts';

/**
 * One failed Graph call, classified for its caller (docs/protocols.md §7):
 * - `sync_state_gone`: 410 Gone (or `syncStateNotFound`/`resyncRequired`) on a delta link — drop it, full sync;
 * - `retryable`: network, timeout, 429, 5xx (honouring `Retry-After`);
 * - `not_found`: 404 (a subscription already gone, a mailbox that does not exist);
 * - `link_refused`: a link Graph handed back names a host other than MICROSOFT_GRAPH_API_URL's, so it is not followed;
 * - `final`: every other answer (400, 401/403 after auth): retrying cannot help.
 */
export type GraphErrorKind = 'sync_state_gone' | 'retryable' | 'not_found' | 'link_refused' | 'final';

export class GraphApiError extends Error {
  readonly kind: GraphErrorKind;
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(kind: GraphErrorKind, message: string, options: { status?: number; retryAfterMs?: number; cause?: unknown } = {}) {
    // The message is stored (the job's last error, the mailbox's): Graph's text made storable on both engines.
    super(storableText(message), { cause: options.cause });
    this.name = 'GraphApiError';
    this.kind = kind;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
  }
}

function graphError(body: string): { code: string; message: string } {
  try {
    const error = (JSON.parse(body) as { error?: { code?: unknown; message?: unknown } }).error;
    return {
      code: typeof error?.code === 'string' ? error.code : '',
      message: typeof error?.message === 'string' ? error.message.slice(0, 300) : '',
    };
  } catch {
    return { code: '', message: body.slice(0, 300) };
  }
}

const SYNC_STATE_CODES = new Set(['syncstatenotfound', 'resyncrequired', 'syncstateinvalid']);

export function classifyGraphResponse(
  status: number,
  body: string,
  retryAfter: string | string[] | undefined,
  context: { what: string; nowMs: number },
): GraphApiError {
  const { code, message } = graphError(body);
  const text = `${context.what}: HTTP ${status}${code ? ` ${code}` : ''}${message ? `: ${message}` : ''}`;
  if (status === 410 || SYNC_STATE_CODES.has(code.toLowerCase())) return new GraphApiError('sync_state_gone', text, { status });
  if (status === 429 || status >= 500) {
    const retryAfterMs = parseRetryAfter(retryAfter, context.nowMs);
    return new GraphApiError('retryable', text, { status, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });
  }
  if (status === 404) return new GraphApiError('not_found', text, { status });
  return new GraphApiError('final', text, { status });
}
