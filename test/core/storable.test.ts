import { describe, expect, it } from 'vitest';

import { storableText, storableValue } from '../../src/core/storable.ts';

describe('storableText', () => {
  it('when text holds U+0000, then it is removed and the rest kept', () => {
    expect(storableText('Ana\u0000 Rep\u0000')).toBe('Ana Rep');
  });

  it('when text holds an unpaired surrogate, then it becomes U+FFFD as both engines would store it', () => {
    expect(storableText('a\uD800b')).toBe('a\uFFFDb');
  });

  it('when text is clean, then the same string comes back', () => {
    expect(storableText('Pricing review – Globex 🚀')).toBe('Pricing review – Globex 🚀');
  });
});

describe('storableValue', () => {
  it('when strings at any depth or in keys hold U+0000, then each is cleaned and numbers, booleans and nulls are kept', () => {
    const value = { topic: 'Demo\u0000', participants: [{ name: 'Guest\u0000 One', duration: 30 }], ['k\u0000ey']: null, on: true };
    expect(storableValue(value)).toEqual({ topic: 'Demo', participants: [{ name: 'Guest One', duration: 30 }], key: null, on: true });
  });

  it('when nothing needs cleaning, then the very same object comes back', () => {
    const value = { topic: 'Demo', participants: [{ name: 'Guest' }] };
    expect(storableValue(value)).toBe(value);
  });

  it('when a cleaned value is serialised, then the JSON holds no \\u0000 escape for PostgreSQL jsonb to refuse', () => {
    expect(JSON.stringify(storableValue({ a: ['\u0000x'] }))).not.toContain('\\u0000');
  });
});
