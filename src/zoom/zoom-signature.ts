import { createHmac } from 'node:crypto';

import { sameSecret } from '../core/constant-time.ts';

// docs/protocols.md §8: a request older or newer than this is refused as a replay.
export const TIMESTAMP_TOLERANCE_MS = 5 * 60_000;

export type SignatureCheck = { ok: true; secret: string } | { ok: false; reason: string };

const hmacHex = (secret: string, text: string) => createHmac('sha256', secret).update(text, 'utf8').digest('hex');
// Over the bytes received: a body that is not valid UTF-8 is checked as sent, never as decoded text.
const bodyHmacHex = (secret: string, timestamp: string, body: Buffer) =>
  createHmac('sha256', secret).update(`v0:${timestamp}:`, 'utf8').update(body).digest('hex');

/**
 * Zoom's webhook signature (docs/protocols.md §8): `x-zm-signature` = `v0=` + hex HMAC-SHA256 of
 * `v0:{x-zm-request-timestamp}:{raw body}` with the app's secret token, the timestamp (seconds)
 * within five minutes. Every configured token is tried (rotation), compared in constant time.
 */
export function verifyZoomSignature(
  secrets: readonly string[],
  headers: { signature: string | undefined; timestamp: string | undefined },
  body: Buffer,
  now: number,
): SignatureCheck {
  if (headers.signature === undefined) return { ok: false, reason: 'x-zm-signature is missing' };
  if (headers.timestamp === undefined || !/^\d{1,12}$/.test(headers.timestamp))
    return { ok: false, reason: 'x-zm-request-timestamp is missing or not a number' };
  if (Math.abs(now - Number(headers.timestamp) * 1000) > TIMESTAMP_TOLERANCE_MS)
    return { ok: false, reason: 'x-zm-request-timestamp is more than 5 minutes off' };
  const { signature, timestamp } = headers;
  // Every token is compared (no early exit); the one that matched signs the url_validation answer.
  let matched: string | undefined;
  for (const secret of secrets) if (sameSecret(signature, `v0=${bodyHmacHex(secret, timestamp, body)}`) && matched === undefined) matched = secret;
  return matched === undefined ? { ok: false, reason: 'x-zm-signature does not match' } : { ok: true, secret: matched };
}

/** The answer to `endpoint.url_validation`: the plain token and its hex HMAC with the secret token that signed the request. */
export const urlValidationAnswer = (secret: string, plainToken: string) => ({ plainToken, encryptedToken: hmacHex(secret, plainToken) });
