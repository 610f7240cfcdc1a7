import { describe, expect, it } from 'vitest';

import { encodeMeetingUuid } from '../../src/zoom/zoom-client.ts';
import { urlValidationAnswer, verifyZoomSignature } from '../../src/zoom/zoom-signature.ts';
import { expectedEncryptedToken, signZoomRequest } from '../fakes/fake-zoom.ts';

const NOW = Date.parse('2026-03-02T16:00:00Z');
const body = Buffer.from('{"event":"recording.completed","payload":{}}');
const headersFor = (secret: string, timestamp = NOW / 1000) => {
  const signed = signZoomRequest(secret, body.toString(), timestamp);
  return { signature: signed['x-zm-signature'], timestamp: signed['x-zm-request-timestamp'] };
};

describe('verifyZoomSignature', () => {
  it('when the body is signed with any configured secret token (rotation), then it is accepted and the token that signed it is named', () => {
    expect(verifyZoomSignature(['old-token-0001', 'new-token-0002'], headersFor('new-token-0002'), body, NOW)).toEqual({ ok: true, secret: 'new-token-0002' });
  });

  it.each([
    ['another secret', headersFor('someone-else'), /does not match/],
    ['a timestamp six minutes old', headersFor('token-0001', NOW / 1000 - 360), /more than 5 minutes off/],
    ['no signature', { signature: undefined, timestamp: String(NOW / 1000) }, /x-zm-signature is missing/],
    ['a timestamp that is not a number', { signature: 'v0=00', timestamp: 'yesterday' }, /not a number/],
  ])('when signed with %s, then it is refused naming why', (_what, headers, reason) => {
    const check = verifyZoomSignature(['token-0001'], headers, body, NOW);
    expect(check.ok).toBe(false);
    expect(check.ok ? '' : check.reason).toMatch(reason);
  });

  it('when one byte of the body changes after signing, then the signature no longer matches', () => {
    const tampered = Buffer.from(body.toString().replace('completed', 'complete!'));
    expect(verifyZoomSignature(['token-0001'], headersFor('token-0001'), tampered, NOW).ok).toBe(false);
  });

  it("when Zoom validates the endpoint, then the answer is the plain token and Zoom's expected HMAC", () => {
    expect(urlValidationAnswer('token-0001', 'plain')).toEqual({ plainToken: 'plain', encryptedToken: expectedEncryptedToken('token-0001', 'plain') });
  });
});

describe('encodeMeetingUuid', () => {
  it('when a uuid begins with / or holds //, then it is encoded twice; otherwise once', () => {
    expect(encodeMeetingUuid('4444AAAiAAAAAiAiAiiAii==')).toBe('4444AAAiAAAAAiAiAiiAii%3D%3D');
    expect(encodeMeetingUuid('/ajXp112QmuoKj4854875==')).toBe('%252FajXp112QmuoKj4854875%253D%253D');
    expect(encodeMeetingUuid('abc//def==')).toBe('abc%252F%252Fdef%253D%253D');
    expect(encodeMeetingUuid('a/b')).toBe('a%2Fb');
  });

  it('when a uuid is . or .., then its dots are percent-encoded so no URL normalisation drops the segment; dots elsewhere stay', () => {
    expect(encodeMeetingUuid('.')).toBe('%2E');
    expect(encodeMeetingUuid('..')).toBe('%2E%2E');
    expect(encodeMeetingUuid('...')).toBe('...');
    expect(encodeMeetingUuid('a.b')).toBe('a.b');
  });
});
