import { describe, expect, it } from 'vitest';

import { errorExcerpt, EXCERPT_MAX_BYTES, truncateUtf8 } from '../../src/momentum/error-excerpt.ts';

describe('errorExcerpt', () => {
  it('when the body is JSON with error, message, detail or title, then that field is the excerpt', () => {
    expect(errorExcerpt('{"error":"Rate limit exceeded","message":"other"}')).toBe('Rate limit exceeded');
    expect(errorExcerpt('{"message":"bad startTime"}')).toBe('bad startTime');
    expect(errorExcerpt('{"type":"about:blank","title":"Bad Request","detail":"hostEmail invalid"}')).toBe('hostEmail invalid');
    expect(errorExcerpt('{"title":"Not Found"}')).toBe('Not Found');
  });

  it('when error is an object with its own message, then the nested message is used', () => {
    expect(errorExcerpt('{"error":{"code":"E42","message":"opportunity not found"}}')).toBe('opportunity not found');
  });

  it('when the JSON has none of the fields, then the text itself is the excerpt', () => {
    expect(errorExcerpt('{"accepted":false,"requestId":"r-1"}')).toBe('{"accepted":false,"requestId":"r-1"}');
  });

  it('when the body is HTML or plain text, then the trimmed text is the excerpt', () => {
    expect(errorExcerpt('  <html><body>502 Bad Gateway</body></html>\n')).toBe('<html><body>502 Bad Gateway</body></html>');
  });

  it('when the body is larger than 4 KB, then the excerpt is at most 4 KB and marked as cut', () => {
    const excerpt = errorExcerpt('x'.repeat(10_000));

    expect(Buffer.byteLength(excerpt)).toBeLessThanOrEqual(EXCERPT_MAX_BYTES);
    expect(excerpt.endsWith('…')).toBe(true);
    expect(excerpt.startsWith('xxxx')).toBe(true);
  });

  it('when the field itself is huge, then it is cut to 4 KB too', () => {
    expect(Buffer.byteLength(errorExcerpt(JSON.stringify({ error: 'e'.repeat(9_000) })))).toBeLessThanOrEqual(EXCERPT_MAX_BYTES);
  });
});

describe('truncateUtf8', () => {
  it('when the cut falls inside a multi-byte character, then the character is dropped whole', () => {
    const cut = truncateUtf8('é'.repeat(10), 8);

    expect(cut).toBe('éé…');
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(8);
  });

  it('when the text fits, then it is returned as is', () => {
    expect(truncateUtf8('Grüße', 100)).toBe('Grüße');
  });
});
