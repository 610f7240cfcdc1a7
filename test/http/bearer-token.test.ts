import { describe, expect, it } from 'vitest';

import { bearerToken } from '../../src/http/bearer.ts';

describe('bearerToken', () => {
  it.each([
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['BEARER \tabc\t ', 'abc'],
    ['Bearer', undefined],
    ['Bearer ', undefined],
    ['Bearer a b', undefined],
    ['Basic abc', undefined],
    ['abc', undefined],
    [undefined, undefined],
  ])('when the header is %j, then the token is %j', (header, token) => {
    expect(bearerToken(header)).toBe(token);
  });
});
