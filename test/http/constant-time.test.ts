import { describe, expect, it } from 'vitest';

import { sameSecret, secretMatcher } from '../../src/core/constant-time.ts';

describe('sameSecret and secretMatcher', () => {
  it('when a secret is offered, then only the exact expected text matches', () => {
    expect(sameSecret('token-0123', 'token-0123')).toBe(true);
    expect(sameSecret('token-012', 'token-0123')).toBe(false);
    expect(sameSecret('token-0123 ', 'token-0123')).toBe(false);
    expect(sameSecret('TOKEN-0123', 'token-0123')).toBe(false);
    expect(sameSecret('', 'token-0123')).toBe(false);
    expect(sameSecret(undefined, 'token-0123')).toBe(false);
  });

  it('when several secrets are expected, then any one of them matches and nothing else does', () => {
    const matches = secretMatcher(['old-key-0123', 'new-key-4567']);

    expect([matches('old-key-0123'), matches('new-key-4567'), matches('old-key-012'), matches(undefined)]).toEqual([true, true, false, false]);
    expect(secretMatcher([])('anything')).toBe(false);
  });
});
