import { createHmac, timingSafeEqual } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import { expectedEncryptedToken, otherEvent, recordingCompletedEvent, sendEvent, signZoomRequest, urlValidationEvent, ZOOM_UUIDS } from './fake-zoom.ts';
import { ACCOUNT, useZoomKit, WEBHOOK_SECRET } from './support/fake-zoom-kit.ts';

/*
 * The fake Zoom is the yardstick of the recording-import tests, so its own behaviour is pinned
 * against docs/protocols.md §8. Here its webhook sender: signatures and URL validation computed as
 * Zoom does (checked against HMACs computed by hand with `openssl dgst -sha256 -hmac`), and the
 * events it builds.
 */

const { receiver } = useZoomKit();

describe('Zoom webhook sender', () => {
  it('when a body is signed, then the headers hold the timestamp and v0= with the HMAC-SHA256 computed by hand', () => {
    // Arrange
    const body = '{"event":"meeting.started","payload":{"account_id":"abc"}}';

    // Act
    const headers = signZoomRequest(WEBHOOK_SECRET, body, 1_700_000_000);

    // Assert
    expect(headers).toEqual({
      'x-zm-request-timestamp': '1700000000',
      'x-zm-signature': 'v0=c42bd68f7cd069228d43333336c3bfd4bb0c94b38902c2fecd5b2a672b5adb8c',
    });
  });

  it('when the URL validation token is encrypted, then it equals the HMAC-SHA256 computed by hand', () => {
    expect(expectedEncryptedToken(WEBHOOK_SECRET, 'qgg8vlvZRS6UYooatFL8Aw')).toBe('bb14734995b1296db328f8a0bf605e48f34f4c9ca4ab1f001ddc76ee33bd9975');
  });

  it('when an event is sent, then the receiver gets the raw JSON with Zoom headers and a signature it can verify over the raw body', async () => {
    // Arrange
    const { url, received } = await receiver();
    const event = recordingCompletedEvent();

    // Act
    const delivery = await sendEvent(url, WEBHOOK_SECRET, event);

    // Assert
    expect(delivery.status).toBe(204);
    expect(delivery.ms).toBeGreaterThan(0);
    expect(received).toHaveLength(1);
    const { headers, body } = received[0]!;
    expect(body).toBe(JSON.stringify(event));
    expect(headers['content-type']).toBe('application/json; charset=utf-8');
    expect(headers['user-agent']).toBe('Zoom Marketplace/1.0a');
    const timestamp = Number(headers['x-zm-request-timestamp']);
    expect(Math.abs(timestamp - Date.now() / 1000)).toBeLessThan(5);
    const expected = Buffer.from(`v0=${createHmac('sha256', WEBHOOK_SECRET).update(`v0:${timestamp}:${body}`).digest('hex')}`);
    expect(timingSafeEqual(Buffer.from(String(headers['x-zm-signature'])), expected)).toBe(true);
  });

  it('when options ask for a raw body, an old timestamp, a wrong signature or none, then exactly that is sent', async () => {
    // Arrange
    const { url, received } = await receiver();
    const event = otherEvent('meeting.started');

    // Act
    await sendEvent(url, WEBHOOK_SECRET, event, { rawBody: '{"event":"meeting.started" }', timestamp: 1_600_000_000 });
    await sendEvent(url, WEBHOOK_SECRET, event, { signature: 'v0=deadbeef' });
    await sendEvent(url, WEBHOOK_SECRET, event, { omitSignature: true });

    // Assert
    expect(received[0]!.body).toBe('{"event":"meeting.started" }');
    expect(received[0]!.headers['x-zm-request-timestamp']).toBe('1600000000');
    expect(received[0]!.headers['x-zm-signature']).toBe(signZoomRequest(WEBHOOK_SECRET, '{"event":"meeting.started" }', 1_600_000_000)['x-zm-signature']);
    expect(received[1]!.headers['x-zm-signature']).toBe('v0=deadbeef');
    expect(received[2]!.headers['x-zm-signature']).toBeUndefined();
    expect(received[2]!.headers['x-zm-request-timestamp']).toBeDefined();
  });

  it('when a URL validation event is sent, then a correct receiver answers the plain token and its encrypted form', async () => {
    // Arrange
    const { url } = await receiver();
    const event = urlValidationEvent();

    // Act
    const delivery = await sendEvent(url, WEBHOOK_SECRET, event);

    // Assert
    expect(event).toEqual({ event: 'endpoint.url_validation', payload: { plainToken: expect.any(String) as string }, event_ts: expect.any(Number) as number });
    expect(delivery.status).toBe(200);
    expect(JSON.parse(delivery.body)).toEqual({
      plainToken: event.payload.plainToken,
      encryptedToken: expectedEncryptedToken(WEBHOOK_SECRET, event.payload.plainToken),
    });
  });

  it('when a recording.completed event is built, then it has the documented shape with a video and an audio file summed in total_size', () => {
    // Act
    const event = recordingCompletedEvent({ uuid: ZOOM_UUIDS.leadingSlash, start_time: '2026-03-02T15:00:00Z', duration: 30 }, { accountId: ACCOUNT });

    // Assert
    const object = event.payload.object;
    expect(event.event).toBe('recording.completed');
    expect(event.event_ts).toBeGreaterThan(1_700_000_000_000);
    expect(event.download_token).toMatch(/^eyJ/);
    expect(event.payload.account_id).toBe(ACCOUNT);
    expect(object).toMatchObject({ uuid: '/ajXp112QmuoKj4854875==', id: expect.any(Number) as number, type: 2, start_time: '2026-03-02T15:00:00Z' });
    expect(object).not.toHaveProperty('password');
    expect(object.recording_files.map((file) => [file.file_type, file.file_extension, file.recording_type, file.status])).toEqual([
      ['MP4', 'MP4', 'shared_screen_with_speaker_view', 'completed'],
      ['M4A', 'M4A', 'audio_only', 'completed'],
    ]);
    expect(object.recording_files[0]).toMatchObject({
      meeting_id: ZOOM_UUIDS.leadingSlash,
      recording_start: '2026-03-02T15:00:00Z',
      recording_end: '2026-03-02T15:30:00Z',
    });
    expect(object.total_size).toBe(object.recording_files[0]!.file_size + object.recording_files[1]!.file_size);
    expect(object.recording_count).toBe(2);
    expect(recordingCompletedEvent({ password: 'xY12ab' }).payload.object.password).toBe('xY12ab');
  });
});
