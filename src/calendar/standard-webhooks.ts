import { createHmac } from 'node:crypto';

import { secretMatcher } from '../core/constant-time.ts';

/**
 * Standard Webhooks signatures: the signature header holds space-separated `v1,<base64
 * HMAC-SHA256>` entries over `${id}.${timestamp}.${rawBody}`, keyed with the base64 bytes after
 * `whsec_`. Several entries and several secrets allow key rotation. The headers are `webhook-id`,
 * `webhook-timestamp` and `webhook-signature`; senders on Svix send the same three under `svix-`
 * names (same meaning, same signature), and those are accepted too.
 */

export const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

// The id becomes part of a dedupe key and log lines: keep it short and printable.
const SANE_ID = /^[A-Za-z0-9._:@-]{1,255}$/;
const UNIX_SECONDS = /^\d{1,12}$/;

/** The header names a delivery used: `webhook-*`, or `svix-*` from senders on Svix. */
export type HeaderPrefix = 'webhook' | 'svix';

export interface StandardWebhookInput {
  id: string | undefined;
  timestamp: string | undefined;
  signature: string | undefined;
  rawBody: Buffer;
  /** Which names the headers came under, so a problem is reported under the name the sender used. */
  prefix?: HeaderPrefix;
}

/**
 * The three headers of one delivery. The `webhook-*` names win: a request carrying any of them is
 * read by those names alone, so a delivery is never verified with headers of two senders mixed.
 * Only a request carrying none of them is read by the `svix-*` names.
 */
export function webhookHeaders(
  get: (name: string) => string | undefined,
): Pick<StandardWebhookInput, 'id' | 'timestamp' | 'signature'> & { prefix: HeaderPrefix } {
  const uses = (prefix: HeaderPrefix) => ['id', 'timestamp', 'signature'].some((part) => get(`${prefix}-${part}`) !== undefined);
  const prefix: HeaderPrefix = !uses('webhook') && uses('svix') ? 'svix' : 'webhook';
  return { prefix, id: get(`${prefix}-id`), timestamp: get(`${prefix}-timestamp`), signature: get(`${prefix}-signature`) };
}

/** `missing_header` and `invalid_*` are malformed requests (400); the last two fail authentication (401). */
export type VerifyFailure = 'missing_header' | 'invalid_id' | 'invalid_timestamp' | 'stale_timestamp' | 'bad_signature';

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

/**
 * The `v1` entries of a signature header, as text. Each entry is `<version>,<signature>`;
 * entries of another version (`v1a,…` for asymmetric keys) are not ours and are skipped, as is
 * anything without a comma.
 */
function v1Signatures(header: string): string[] {
  const offered: string[] = [];
  for (const entry of header.split(' ')) {
    const comma = entry.indexOf(',');
    if (comma !== -1 && entry.slice(0, comma) === 'v1') offered.push(entry.slice(comma + 1));
  }
  return offered;
}

/**
 * Whether any offered entry is the signature of one of the secrets. Compared as base64 text:
 * only the canonical, padded encoding of the right 32 bytes is equal, so invalid base64, another
 * length or non-canonical padding bits never match (decoding first would be lenient: Node's base64
 * decoder skips characters it does not know). Every entry is compared with every secret's
 * signature, in constant time.
 */
function anyMatches(offered: readonly string[], expected: readonly string[]): boolean {
  const matches = secretMatcher(expected);
  let matched = false;
  for (const entry of offered) matched = matches(entry) || matched;
  return matched;
}

/** Checks the headers and signature of one delivery against every configured secret. */
export function verifyStandardWebhook(
  input: StandardWebhookInput,
  secrets: readonly string[],
  options: { nowMs?: number; toleranceSeconds?: number } = {},
): VerifyResult {
  const { id, timestamp, signature, rawBody } = input;
  const prefix = input.prefix ?? 'webhook';
  // Named one by one: "invalid signature" for a header that was never sent sends a sender hunting for a key problem.
  const missing = (part: string): VerifyResult => ({ ok: false, reason: 'missing_header', message: `missing ${prefix}-${part} header` });
  if (!id) return missing('id');
  if (!timestamp) return missing('timestamp');
  if (!signature) return missing('signature');
  if (!SANE_ID.test(id)) return { ok: false, reason: 'invalid_id', message: `${prefix}-id must be 1 to 255 characters: letters, digits and . _ : @ -` };
  if (!UNIX_SECONDS.test(timestamp)) return { ok: false, reason: 'invalid_timestamp', message: `${prefix}-timestamp must be unix seconds` };
  const seconds = Number(timestamp);
  const nowSeconds = Math.floor((options.nowMs ?? Date.now()) / 1000);
  // The tolerance bounds replays of a captured delivery to five minutes either way.
  if (Math.abs(nowSeconds - seconds) > (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) {
    return { ok: false, reason: 'stale_timestamp', message: `${prefix}-timestamp is outside the allowed tolerance` };
  }
  const expected = secrets.map((secret) => signatureOf(secretKey(secret), id, timestamp, rawBody).toString('base64'));
  if (anyMatches(v1Signatures(signature), expected)) return { ok: true, id, timestamp: seconds };
  return { ok: false, reason: 'bad_signature', message: `no ${prefix}-signature entry matches a configured secret` };
}
