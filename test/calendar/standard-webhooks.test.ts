import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signStandardWebhook, verifyStandardWebhook } from '../../src/ingest/standard-webhooks.ts';

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

    expect(verifyStandardWebhook({ id: 'msg_2', timestamp: TS, signature, rawBody: BODY }, [SECRET], { nowMs: NOW })).toMatchObject({ ok: false, reason: 'bad_signature' });
  });

  it('when the timestamp is more than 5 minutes off either way, then it is stale; at exactly 5 minutes it passes', () => {
    const at = (seconds: number) =>
      verifyStandardWebhook({ id: 'm', timestamp: String(seconds), signature: signStandardWebhook(SECRET, 'm', seconds, BODY), rawBody: BODY }, [SECRET], { nowMs: NOW });

    expect(at(NOW / 1000 - 301)).toMatchObject({ ok: false, reason: 'stale_timestamp' });
    expect(at(NOW / 1000 + 301)).toMatchObject({ ok: false, reason: 'stale_timestamp' });
    expect(at(NOW / 1000 - 300).ok).toBe(true);
  });

  it('when headers are missing or malformed, then each is refused with its reason', () => {
    const signature = signStandardWebhook(SECRET, 'm', NOW / 1000, BODY);
    const check = (id: string | undefined, timestamp: string | undefined, sig: string | undefined) =>
      verifyStandardWebhook({ id, timestamp, signature: sig, rawBody: BODY }, [SECRET], { nowMs: NOW });

    expect(check(undefined, TS, signature)).toMatchObject({ reason: 'missing_headers' });
    expect(check('m', TS, undefined)).toMatchObject({ reason: 'missing_headers' });
    expect(check('m id with spaces', TS, signature)).toMatchObject({ reason: 'invalid_id' });
    expect(check('m', '1.7e9', signature)).toMatchObject({ reason: 'invalid_timestamp' });
    expect(check('m', TS, 'v1,not-base64-and-wrong-length')).toMatchObject({ reason: 'bad_signature' });
  });
});
