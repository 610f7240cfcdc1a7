import { createHash } from 'node:crypto';

import { storableText, storableValue } from '../core/storable.ts';

/** Value conversions shared by both engines: JSON columns and bounded text. */

/**
 * JSON columns are TEXT; `undefined` is stored as JSON null so every row parses back. Strings are
 * made storable first (src/core/storable.ts): inbound bodies holding U+0000 are refused at the
 * edge, but a value an upstream API returned must not leave a `\u0000` escape that PostgreSQL's
 * jsonb (the admin search) refuses, and both engines must keep the same payload.
 */
export function toJson(value: unknown): string {
  return JSON.stringify(storableValue(value ?? null));
}

export function fromJson(text: unknown): unknown {
  return typeof text === 'string' ? JSON.parse(text) : null;
}

export const EXCERPT_MAX_BYTES = 4096;

/**
 * Cuts a response excerpt to at most 4 KB of UTF-8, on a
 * character boundary so the stored text never ends in half a character.
 */
export function truncateExcerpt(text: string | undefined, maxBytes = EXCERPT_MAX_BYTES): string | null {
  if (text === undefined) return null;
  // An upstream's error body is its own: U+0000 in it must not make the attempt unstorable on PostgreSQL.
  text = storableText(text);
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  // 0b10xxxxxx is a continuation byte: step back to the start of the character it belongs to.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return bytes.subarray(0, end).toString('utf8');
}

/** Longest indexed key kept as it is; PostgreSQL refuses a btree entry over ~2.7 kB. */
export const KEY_MAX_CHARS = 200;

/**
 * A key (coalescing, serial, dedupe) short enough for any index: kept as it is up to 200
 * characters, else its first 100 characters and a SHA-256 of the whole, so a long title still
 * identifies its meeting exactly and the key stays readable in the admin API. Idempotent.
 */
export function boundKey(key: string): string {
  if (key.length <= KEY_MAX_CHARS) return key;
  return `${key.slice(0, 100)}…#${createHash('sha256').update(key, 'utf8').digest('hex')}`;
}
