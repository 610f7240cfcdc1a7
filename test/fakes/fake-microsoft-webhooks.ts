/**
 * What Microsoft Graph sends to a subscriber: the validation request on create (for the
 * notification URL and the lifecycle URL alike) and notification POSTs. Every call is bounded
 * by a timeout and reports what the subscriber answered.
 */

export interface ValidationAttempt {
  url: string;
  /** The token as Graph meant it (decoded); the URL carries it form-encoded. */
  token: string;
  status: number | undefined;
  contentType: string | undefined;
  body: string | undefined;
  ms: number;
  /** Why Graph refused the answer, or undefined when the endpoint passed. */
  problem: string | undefined;
}

export interface Delivery {
  status: number;
  body: string;
  ms: number;
}

/**
 * Graph's validation token: opaque text with spaces, colons and `<&>`, so a subscriber that
 * answers the raw query text, forgets that `+` is a space, or HTML-escapes the body fails.
 */
export const validationTokenFor = (requestId: string) => `Validation: Testing client application reachability for subscription Request-Id: ${requestId} <&>`;

/**
 * Form encoding as .NET's HttpUtility.UrlEncode writes it, which Graph's validation URLs show
 * (`Validation%3a+Testing+client…`): space as `+`, lowercase hex, `-_.!*()` left alone.
 */
export function formEncode(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((byte) => {
      const char = String.fromCharCode(byte);
      if (/[A-Za-z0-9\-_.!*()]/.test(char)) return char;
      if (char === ' ') return '+';
      return `%${byte.toString(16).padStart(2, '0')}`;
    })
    .join('');
}

/** POST {url}?validationToken=… with an empty text/plain body; 200, text/plain and the token exactly within the time limit pass. */
export async function validateEndpoint(url: string, token: string, timeoutMs: number): Promise<ValidationAttempt> {
  const target = `${url}${url.includes('?') ? '&' : '?'}validationToken=${formEncode(token)}`;
  const started = performance.now();
  const attempt: ValidationAttempt = { url, token, status: undefined, contentType: undefined, body: undefined, ms: 0, problem: undefined };
  try {
    const response = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      body: '',
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    attempt.status = response.status;
    attempt.contentType = response.headers.get('content-type') ?? undefined;
    attempt.body = await response.text();
  } catch (error) {
    attempt.ms = performance.now() - started;
    attempt.problem =
      (error as Error).name === 'TimeoutError'
        ? 'Subscription validation request timeout.'
        : `Subscription validation request failed. ${(error as Error).message}`;
    return attempt;
  }
  attempt.ms = performance.now() - started;
  if (attempt.status !== 200) attempt.problem = 'Subscription validation request failed. Notification endpoint must respond with 200 OK to validation request.';
  else if (!/^text\/plain\b/i.test(attempt.contentType ?? ''))
    attempt.problem = 'Subscription validation request failed. Must respond with 200 OK to this request with a text/plain content type.';
  else if (attempt.body !== token) attempt.problem = 'Subscription validation request failed. Response must exactly match validationToken query parameter.';
  return attempt;
}

/** POSTs a notification body as Graph does and resolves what the subscriber answered. */
export async function deliver(url: string, body: string, timeoutMs: number): Promise<Delivery> {
  const started = performance.now();
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body,
    redirect: 'manual',
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  return { status: response.status, body: text, ms: performance.now() - started };
}
