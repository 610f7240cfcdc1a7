import { createHash } from 'node:crypto';

import { secretMatcher } from '../core/constant-time.ts';
import { bearerToken } from '../http/bearer.ts';

/**
 * Admin API keys (ADMIN_API_KEYS): several at once so keys can be rotated. Every configured key
 * is compared on each call, in constant time (src/core/constant-time.ts).
 */

/** What logs name a key by: 8 hex characters of its SHA-256, never the key. */
export const keyFingerprint = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex').slice(0, 8);

export interface ApiKeyMatcher {
  readonly enabled: boolean;
  /** The fingerprint of the matching key, or undefined. */
  match(offered: string | undefined): string | undefined;
}

export function createApiKeyMatcher(keys: readonly string[]): ApiKeyMatcher {
  const matches = secretMatcher(keys);
  return {
    enabled: keys.length > 0,
    match(offered) {
      if (offered === undefined || offered === '') return undefined;
      return matches(offered) ? keyFingerprint(offered) : undefined;
    },
  };
}

/** `Authorization: Bearer <key>` first, else `X-API-Key: <key>`. */
export function presentedKey(headers: { authorization?: string | undefined; apiKey?: string | undefined }): string | undefined {
  return bearerToken(headers.authorization) ?? (headers.apiKey?.trim() || undefined);
}
