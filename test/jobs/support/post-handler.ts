import { Agent, request } from 'undici';

import type { Pacer } from '../../../src/jobs/pacer.ts';
import { parseRetryAfter, SLOW_DOWN_MIN_DELAY_MS } from '../../../src/jobs/retry-policy.ts';
import type { JobHandler } from '../../../src/jobs/types.ts';

export interface PostHandlerOptions {
  url: string;
  /** Pacing: the claim took the job's call slot; a 429 blocks the budget. */
  pacer?: Pacer;
  bucketKey?: string;
  dispatcher?: Agent;
}

/**
 * Test-only handler: POSTs the job payload to a loopback recorder with the job id in `x-job-id`,
 * and classifies the answer the way the Momentum handlers do (2xx ok, 429/5xx/network retry,
 * other 4xx dead).
 */
export function createPostHandler(options: PostHandlerOptions): JobHandler {
  const bucketKey = options.bucketKey ?? 'recorder';
  return async (job, context) => {
    const startedAt = context.now();
    try {
      const response = await request(options.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-job-id': String(job.id) },
        body: JSON.stringify(job.payload ?? null),
        signal: context.signal,
        ...(options.dispatcher && { dispatcher: options.dispatcher }),
      });
      await response.body.text();
      const status = response.statusCode;
      const attempt = { startedAt, durationMs: context.now() - startedAt, status };
      if (status >= 200 && status < 300) return { kind: 'succeeded', attempt, calledUpstream: true };
      if (status === 429) {
        const retryAfterMs = parseRetryAfter(response.headers['retry-after'], context.now());
        if (options.pacer && retryAfterMs !== undefined) await options.pacer.block(bucketKey, context.now() + retryAfterMs);
        return {
          kind: 'retryable',
          error: 'HTTP 429',
          retryAfterMs,
          minDelayMs: SLOW_DOWN_MIN_DELAY_MS,
          attempt: { ...attempt, errorClass: 'http_429' },
          calledUpstream: true,
        };
      }
      if (status >= 500) return { kind: 'retryable', error: `HTTP ${status}`, attempt: { ...attempt, errorClass: 'http_5xx' }, calledUpstream: true };
      return { kind: 'final', state: 'dead', reason: `HTTP ${status}`, attempt: { ...attempt, errorClass: 'rejected' }, calledUpstream: true };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { kind: 'retryable', error: message, attempt: { startedAt, durationMs: context.now() - startedAt, errorClass: 'network' }, calledUpstream: true };
    }
  };
}
