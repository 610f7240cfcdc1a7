import { createHmac } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import { signStandardWebhook, verifyStandardWebhook, webhookHeaders } from '../../src/calendar/standard-webhooks.ts';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const OTHER = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
const NOW = 1_760_000_000_000;
const TS = String(NOW / 1000);
const BODY = Buffer.from('{"version":1,"id":"evt-1"}');

describe('verifyStandardWebhook', () => {
  it('when the signature is the Standard Webhooks HMAC of id.timestamp.body, then it verifies', () => {
    // Computed independently of the module: base64(HMAC-SHA256(base64decode(secret), "id.ts.body")).
    const key = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`msg_1.${TS}.${BODY.toString()}`).digest('base64');

    const result = verifyStandardWebhook({ id: 'msg_1', timestamp: TS, signature: `v1,${expected}`, rawBody: BODY }, [SECRET], { nowMs: NOW });

    expect(result).toEqual({ ok: true, id: 'msg_1', timestamp: NOW / 1000 });
    expect(signStandardWebhook(SECRET, 'msg_1', NOW / 1000, BODY)).toBe(`v1,${expected}`);
  });

  it('when the header holds several entries and one matches a second configured secret, then it verifies (rotation)', () => {
    const signature = `v1,${Buffer.alloc(32).toString('base64')} v2,ignored ${signStandardWebhook(OTHER, 'msg_1', NOW / 1000, BODY)}`;

    expect(verifyStandardWebhook({ id: 'msg_1', timestamp: TS, signature, rawBody: BODY }, [SECRET, OTHER], { nowMs: NOW }).ok).toBe(true);
  });

  it('when the body differs by one byte, then the signature is refused', () => {
    const signature = signStandardWebhook(SECRET, 'msg_1', NOW / 1000, BODY);
    const result = verifyStandardWebhook({ id: 'msg_1', timestamp: TS, signature, rawBody: Buffer.from(`${BODY.toString()} `) }, [SECRET], { nowMs: NOW });

    expect(result).toMatchObject({ ok: false, reason: 'bad_signature' });
  });

  it('when the id is replaced, then the signature no longer matches', () => {
    const signature = signStandardWebhook(SECRET, 'msg_1', NOW / 1000, BODY);

    expect(verifyStandardWebhook({ id: 'msg_2', timestamp: TS, signature, rawBody: BODY }, [SECRET], { nowMs: NOW })).toMatchObject({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it('when the timestamp is more than 5 minutes off either way, then it is stale; at exactly 5 minutes it passes', () => {
    const at = (seconds: number) =>
      verifyStandardWebhook({ id: 'm', timestamp: String(seconds), signature: signStandardWebhook(SECRET, 'm', seconds, BODY), rawBody: BODY }, [SECRET], {
        nowMs: NOW,
      });

    expect(at(NOW / 1000 - 301)).toMatchObject({ ok: false, reason: 'stale_timestamp' });
    expect(at(NOW / 1000 + 301)).toMatchObject({ ok: false, reason: 'stale_timestamp' });
    expect(at(NOW / 1000 - 300).ok).toBe(true);
  });

  it('when headers are missing or malformed, then each is refused with its reason', () => {
    const signature = signStandardWebhook(SECRET, 'm', NOW / 1000, BODY);
    const check = (id: string | undefined, timestamp: string | undefined, sig: string | undefined) =>
      verifyStandardWebhook({ id, timestamp, signature: sig, rawBody: BODY }, [SECRET], { nowMs: NOW });

    expect(check(undefined, TS, signature)).toMatchObject({ reason: 'missing_header', message: 'missing webhook-id header' });
    expect(check('m', undefined, signature)).toMatchObject({ reason: 'missing_header', message: 'missing webhook-timestamp header' });
    expect(check('m', TS, undefined)).toMatchObject({ reason: 'missing_header', message: 'missing webhook-signature header' });
    expect(check('m', TS, '')).toMatchObject({ reason: 'missing_header', message: 'missing webhook-signature header' });
    expect(check('m id with spaces', TS, signature)).toMatchObject({ reason: 'invalid_id' });
    expect(check('m', '1.7e9', signature)).toMatchObject({ reason: 'invalid_timestamp' });
    expect(check('m', TS, 'v1,not-base64-and-wrong-length')).toMatchObject({ reason: 'bad_signature' });
  });

  it('when a header came under its svix- name, then a problem with it is reported under that name', () => {
    const result = verifyStandardWebhook({ id: 'm', timestamp: TS, signature: undefined, rawBody: BODY, prefix: 'svix' }, [SECRET], { nowMs: NOW });

    expect(result).toMatchObject({ reason: 'missing_header', message: 'missing svix-signature header' });
  });

  describe('signature entries are decoded strictly', () => {
    const good = signStandardWebhook(SECRET, 'm', NOW / 1000, BODY);
    const base64 = good.slice('v1,'.length);
    const verify = (signature: string) => verifyStandardWebhook({ id: 'm', timestamp: TS, signature, rawBody: BODY }, [SECRET], { nowMs: NOW });
    // The last base64 character of a 32-byte value carries 2 unused bits: changing them leaves the bytes as they were.
    const lastIndex = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.indexOf(base64.at(-2)!);
    const sameBytesOtherText = `${base64.slice(0, -2)}${'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'[lastIndex ^ 1]}=`;

    it.each([
      ['the entry alone', good],
      ['the entry after entries of other versions and stray spaces', `v1a,${base64}  v2,${base64} ${good}`],
      ['the entry after a v1 entry of another key', `v1,${Buffer.alloc(32).toString('base64')} ${good}`],
    ])('when the header holds %s, then it verifies', (_case, signature) => {
      expect(verify(signature).ok).toBe(true);
    });

    it.each([
      ['the right signature under another version', `v1a,${base64}`],
      ['no version at all', base64],
      ['the signature without its padding', `v1,${base64.slice(0, -1)}`],
      ['the signature with whitespace inside', `v1,${base64.slice(0, 10)}\t${base64.slice(10)}`],
      ['the signature in base64url', `v1,${base64.replace(/\+/g, '-').replace(/\//g, '_')}`],
      ['the same bytes encoded with non-zero padding bits', `v1,${sameBytesOtherText}`],
      ['the signature followed by junk in the same entry', `${good},junk`],
      ['the signature twice in one entry', `v1,${base64}${base64}`],
      ['an empty v1 entry', 'v1,'],
    ])('when the header holds %s, then it never matches', (_case, signature) => {
      // The lenient decoder would have turned some of these into the right 32 bytes.
      expect(verify(signature)).toMatchObject({ ok: false, reason: 'bad_signature' });
    });

    it('when the lenient decoder would accept the text, then the strict check still refuses it', () => {
      expect(Buffer.from(sameBytesOtherText, 'base64').equals(Buffer.from(base64, 'base64'))).toBe(true);
      expect(verify(`v1,${sameBytesOtherText}`).ok).toBe(false);
    });
  });
});

describe('webhookHeaders', () => {
  const from = (headers: Record<string, string>) => webhookHeaders((name) => headers[name]);

  it('when only svix- headers are sent, then they are read', () => {
    expect(from({ 'svix-id': 'msg_1', 'svix-timestamp': TS, 'svix-signature': 'v1,x' })).toEqual({
      prefix: 'svix',
      id: 'msg_1',
      timestamp: TS,
      signature: 'v1,x',
    });
  });

  it('when both sets are sent, then the webhook- names win, all three of them', () => {
    const headers = from({
      'webhook-id': 'w',
      'webhook-timestamp': TS,
      'webhook-signature': 'v1,w',
      'svix-id': 's',
      'svix-timestamp': '1',
      'svix-signature': 'v1,s',
    });

    expect(headers).toEqual({ prefix: 'webhook', id: 'w', timestamp: TS, signature: 'v1,w' });
  });

  it('when one webhook- header is sent beside svix- ones, then the webhook- names are read and the missing ones stay missing', () => {
    expect(from({ 'webhook-id': 'w', 'svix-timestamp': TS, 'svix-signature': 'v1,s' })).toEqual({
      prefix: 'webhook',
      id: 'w',
      timestamp: undefined,
      signature: undefined,
    });
  });

  it('when neither is sent, then the webhook- names are the ones reported missing', () => {
    expect(from({})).toEqual({ prefix: 'webhook', id: undefined, timestamp: undefined, signature: undefined });
  });
});
