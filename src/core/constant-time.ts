import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * The one way the bridge compares a secret a caller offers (an API key, a token, a signature)
 * with the one it expects. Both sides are hashed with SHA-256 first: timingSafeEqual needs equal
 * lengths, and equal-length digests make the comparison take the same time whatever was sent,
 * so neither the secret's content nor its length leaks through timing.
 */

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * A check of offered values against `expected` (several during a rotation), hashed once here.
 * Every expected secret is compared on each call, with no early exit, so timing says neither
 * which one matched nor how many there are. An absent offer never matches.
 */
export function secretMatcher(expected: readonly string[]): (offered: string | undefined) => boolean {
  const digests = expected.map(digest);
  return (offered) => {
    if (offered === undefined) return false;
    const candidate = digest(offered);
    let matched = false;
    for (const known of digests) matched = timingSafeEqual(candidate, known) || matched;
    return matched;
  };
}

/** Whether `offered` is exactly `expected`, compared in constant time (a one-off secretMatcher). */
export const sameSecret = (offered: string | undefined, expected: string): boolean => secretMatcher([expected])(offered);
