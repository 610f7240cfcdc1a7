import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Standard Webhooks signatures (protocols.md §4): `webhook-signature` holds space-separated
 * `v1,<base64 HMAC-SHA256>` entries over `${webhook-id}.${webhook-timestamp}.${rawBody}`, keyed
 * with the base64 bytes after `whsec_`. Several entries and several secrets allow key rotation.
 */

export const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

// The id becomes part of a dedupe key and log lines: keep it short and printable.
const SANE_ID = /^[A-Za-z0-9._:@-]{1,255}$/;
const UNIX_SECONDS = /^\d{1,12}$/;

export interface StandardWebhookInput {
  id: string | undefined;
  timestamp: string | undefined;
  signature: string | undefined;
  rawBody: Buffer;
}

export type VerifyFailure = 'missing_headers' | 'invalid_id' | 'invalid_timestamp' | 'stale_timestamp' | 'bad_signature';

export type VerifyResult = { ok: true; id: string; timestamp: number } | { ok: false; reason: VerifyFailure; message: string };

export function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

export function signatureOf(key: Buffer, id: string, timestamp: string, rawBody: Buffer): Buffer {
  return createHmac('sha256', key).update(`${id}.${timestamp}.`).update(rawBody).digest();
}

/** A `webhook-signature` value for `secret` (for senders, the docs and tests). */
export function signStandardWebhook(secret: string, id: string, timestamp: number, rawBody: Buffer | string): string {
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody) : rawBody;
  return `v1,${signatureOf(secretKey(secret), id, String(timestamp), body).toString('base64')}`;
}

function offeredSignatures(header: string): Buffer[] {
  return header
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => Buffer.from(entry.slice(3), 'base64'));
}

/** Checks the headers and signature of one delivery against every configured secret. */
export function verifyStandardWebhook(
  input: StandardWebhookInput,
  secrets: readonly string[],
  options: { nowMs?: number; toleranceSeconds?: number } = {},
): VerifyResult {
  const { id, timestamp, signature, rawBody } = input;
  if (!id || !timestamp || !signature) {
    return { ok: false, reason: 'missing_headers', message: 'webhook-id, webhook-timestamp and webhook-signature are required' };
  }
  if (!SANE_ID.test(id)) return { ok: false, reason: 'invalid_id', message: 'webhook-id has unexpected characters or length' };
  if (!UNIX_SECONDS.test(timestamp)) return { ok: false, reason: 'invalid_timestamp', message: 'webhook-timestamp must be unix seconds' };
  const seconds = Number(timestamp);
  const nowSeconds = Math.floor((options.nowMs ?? Date.now()) / 1000);
  // The tolerance bounds replays of a captured delivery to a few minutes (§4: ±5 minutes).
  if (Math.abs(nowSeconds - seconds) > (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) {
    return { ok: false, reason: 'stale_timestamp', message: 'webhook-timestamp is outside the allowed tolerance' };
  }
  const offered = offeredSignatures(signature);
  for (const secret of secrets) {
    const expected = signatureOf(secretKey(secret), id, timestamp, rawBody);
    // timingSafeEqual needs equal lengths; a length mismatch reveals nothing about the key.
    if (offered.some((candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected))) {
      return { ok: true, id, timestamp: seconds };
    }
  }
  return { ok: false, reason: 'bad_signature', message: 'no webhook-signature entry matches a configured secret' };
}
