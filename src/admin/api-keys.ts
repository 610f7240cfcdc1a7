import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Admin API keys (ADMIN_API_KEYS): several at once so keys can be rotated. Keys are compared as
 * SHA-256 digests with timingSafeEqual, so neither a key's content nor its length leaks through
 * timing, and every configured key is compared on each call (no early exit on the first match).
 */

const digest = (key: string): Buffer => createHash('sha256').update(key, 'utf8').digest();

/** What logs name a key by: 8 hex characters of its SHA-256, never the key. */
export const keyFingerprint = (key: string): string => digest(key).toString('hex').slice(0, 8);

export interface ApiKeyMatcher {
  readonly enabled: boolean;
  /** The fingerprint of the matching key, or undefined. */
  match(offered: string | undefined): string | undefined;
}

export function createApiKeyMatcher(keys: readonly string[]): ApiKeyMatcher {
  const digests = keys.map(digest);
  return {
    enabled: digests.length > 0,
    match(offered) {
      if (offered === undefined || offered === '') return undefined;
      const candidate = digest(offered);
      let matched = false;
      for (const known of digests) matched = timingSafeEqual(candidate, known) || matched;
      return matched ? candidate.toString('hex').slice(0, 8) : undefined;
    },
  };
}

/** `Authorization: Bearer <key>` first, else `X-API-Key: <key>`. */
export function presentedKey(headers: { authorization?: string | undefined; apiKey?: string | undefined }): string | undefined {
  const bearer = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(headers.authorization ?? '')?.[1];
  return bearer ?? (headers.apiKey?.trim() || undefined);
}
