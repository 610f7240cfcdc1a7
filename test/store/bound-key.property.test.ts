import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { boundKey, KEY_MAX_CHARS } from '../../src/store/store-values.ts';

describe('boundKey', () => {
  it('when a key is short enough for any index, then it is kept exactly as it is', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: KEY_MAX_CHARS }), (key) => {
        expect(boundKey(key)).toBe(key);
      }),
    );
  });

  it('when a key is of any length, then the bounded key is at most 200 characters and bounding it again changes nothing', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 10_000, unit: 'grapheme' }), (key) => {
        const bounded = boundKey(key);
        expect(bounded.length).toBeLessThanOrEqual(KEY_MAX_CHARS);
        expect(boundKey(bounded)).toBe(bounded);
      }),
    );
  });

  it('when two long keys differ anywhere, even past the kept prefix, then their bounded keys differ', () => {
    fc.assert(
      fc.property(fc.string({ minLength: KEY_MAX_CHARS + 1, maxLength: 3_000 }), fc.nat(), fc.string({ minLength: 1, maxLength: 1 }), (key, at, char) => {
        const index = at % key.length;
        fc.pre(key[index] !== char);
        const other = `${key.slice(0, index)}${char}${key.slice(index + 1)}`;
        expect(boundKey(other)).not.toBe(boundKey(key));
      }),
    );
  });
});
