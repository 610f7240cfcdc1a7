import { describe, expect, it } from 'vitest';

import { classifyGraphResponse } from '../../src/microsoft/graph-api-error.ts';

const throttled = JSON.stringify({ error: { code: 'ApplicationThrottled', message: 'Application is over its MailboxConcurrency limit.' } });
const context = { what: 'calendarView delta', nowMs: Date.parse('2026-11-27T12:00:00Z') };

describe('classifyGraphResponse', () => {
  it('when Graph throttles with a fractional Retry-After, as its throttling guidance shows, then the whole delay is honoured', () => {
    const error = classifyGraphResponse(429, throttled, '2.128', context);

    expect(error).toMatchObject({ kind: 'retryable', status: 429, retryAfterMs: 2_128 });
    expect(error.message).toBe('calendarView delta: HTTP 429 ApplicationThrottled: Application is over its MailboxConcurrency limit.');
  });

  it('when a 503 names an HTTP date, then the delay runs to that date', () => {
    expect(classifyGraphResponse(503, '', 'Fri, 27 Nov 2026 12:00:30 GMT', context)).toMatchObject({ kind: 'retryable', retryAfterMs: 30_000 });
  });
});
