import { createHmac, randomBytes, randomUUID } from 'node:crypto';

/**
 * What Zoom's webhook sender POSTs to an app (docs/protocols.md §8): signed events, the endpoint
 * URL validation challenge, `recording.completed` shaped as Zoom documents it, and other events.
 * No server: the test names the URL and the secret token, and reads what the receiver answered.
 */

export interface ZoomRecordingFile {
  id: string;
  meeting_id: string;
  recording_start: string;
  recording_end: string;
  file_type: string;
  file_extension: string;
  file_size: number;
  play_url: string;
  download_url: string;
  status: 'completed';
  recording_type: string;
}

export interface ZoomRecordingObject {
  uuid: string;
  id: number;
  host_id: string;
  host_email: string;
  topic: string;
  type: number;
  /** ISO 8601 in UTC, whole seconds (`2026-03-02T15:04:05Z`). */
  start_time: string;
  timezone: string;
  /** Minutes; Zoom sometimes sends 0. */
  duration: number;
  total_size: number;
  recording_count: number;
  share_url: string;
  password?: string;
  recording_files: ZoomRecordingFile[];
}

export interface ZoomRecordingCompletedEvent {
  event: 'recording.completed';
  /** Milliseconds since the epoch. */
  event_ts: number;
  download_token: string;
  payload: { account_id: string; object: ZoomRecordingObject };
}

export interface ZoomUrlValidationEvent {
  event: 'endpoint.url_validation';
  payload: { plainToken: string };
  event_ts: number;
}

export interface ZoomDelivery {
  status: number;
  body: string;
  headers: Record<string, string>;
  ms: number;
}

export interface SendEventOptions {
  /** Seconds since the epoch for `x-zm-request-timestamp` (default now). */
  timestamp?: number;
  /** Sent as `x-zm-signature` instead of the correct one. */
  signature?: string;
  /** Leaves `x-zm-signature` out (the timestamp is still sent). */
  omitSignature?: boolean;
  /** Sent (and signed) instead of `JSON.stringify(event)`. */
  rawBody?: string;
  /** Bytes sent (and signed) as they are, for bodies that are not UTF-8 text. */
  rawBytes?: Buffer;
  /** How long to wait for the receiver's answer before rejecting (default 15 000 ms; Zoom itself gives up after 3 s). */
  timeoutMs?: number;
}

/** Meeting UUIDs as Zoom issues them: base64 text, so some begin with `/` or hold `//` and must be double-encoded in API paths. */
export const ZOOM_UUIDS = {
  plain: '4444AAAiAAAAAiAiAiiAii==',
  leadingSlash: '/ajXp112QmuoKj4854875==',
  doubleSlash: 'abc//def==',
} as const;

export const ZOOM_SAMPLE_ACCOUNT_ID = 'D8cJuqWVQ623CI4Q8yQK0Q';

const hmacHex = (secret: string, text: string) => createHmac('sha256', secret).update(text, 'utf8').digest('hex');
const isoSeconds = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Zoom's signature headers: `v0=` + hex HMAC-SHA256(secret token, `v0:{timestamp}:{raw body}`) over the bytes sent, timestamp in seconds. */
export function signZoomRequest(
  secretToken: string,
  body: string | Uint8Array,
  timestamp: number,
): { 'x-zm-request-timestamp': string; 'x-zm-signature': string } {
  const signed = createHmac('sha256', secretToken).update(`v0:${timestamp}:`, 'utf8').update(body).digest('hex');
  return { 'x-zm-request-timestamp': String(timestamp), 'x-zm-signature': `v0=${signed}` };
}

/** What the app must answer to `endpoint.url_validation`: hex HMAC-SHA256(secret token, plainToken). */
export const expectedEncryptedToken = (secretToken: string, plainToken: string) => hmacHex(secretToken, plainToken);

export function urlValidationEvent(plainToken: string = randomBytes(16).toString('base64url')): ZoomUrlValidationEvent {
  return { event: 'endpoint.url_validation', payload: { plainToken }, event_ts: Date.now() };
}

/** A `recording.completed` event as Zoom documents it; files, sizes and counts follow the meeting fields given. */
export function recordingCompletedEvent(
  meeting: Partial<ZoomRecordingObject> = {},
  envelope: { accountId?: string; downloadToken?: string; eventTs?: number } = {},
): ZoomRecordingCompletedEvent {
  const uuid = meeting.uuid ?? ZOOM_UUIDS.plain;
  const start = Date.parse(meeting.start_time ?? isoSeconds(Date.now() - 3_600_000));
  const duration = meeting.duration ?? 42;
  // A meeting of 0 minutes still has a recording that lasts a few seconds.
  const end = start + Math.max(duration * 60_000, 5_000);
  const file = (fileType: 'MP4' | 'M4A', recordingType: string, size: number): ZoomRecordingFile => {
    const id = randomUUID();
    return {
      id,
      meeting_id: uuid,
      recording_start: isoSeconds(start),
      recording_end: isoSeconds(end),
      file_type: fileType,
      file_extension: fileType,
      file_size: size,
      play_url: `https://example.zoom.us/rec/play/${id}`,
      download_url: `https://example.zoom.us/rec/webhook_download/${id}`,
      status: 'completed',
      recording_type: recordingType,
    };
  };
  const files = meeting.recording_files ?? [file('MP4', 'shared_screen_with_speaker_view', 246_560_453), file('M4A', 'audio_only', 38_218_402)];
  const object: ZoomRecordingObject = {
    uuid,
    id: meeting.id ?? 84_953_162_745,
    host_id: meeting.host_id ?? 'z8yCxjabcdEFGHfp8uQ',
    host_email: meeting.host_email ?? 'host.user@example.com',
    topic: meeting.topic ?? 'Quarterly review with Acme',
    type: meeting.type ?? 2,
    start_time: isoSeconds(start),
    timezone: meeting.timezone ?? 'America/New_York',
    duration,
    total_size: meeting.total_size ?? files.reduce((sum, item) => sum + item.file_size, 0),
    recording_count: meeting.recording_count ?? files.length,
    share_url: meeting.share_url ?? `https://example.zoom.us/rec/share/${randomBytes(24).toString('base64url')}`,
    ...(meeting.password === undefined ? {} : { password: meeting.password }),
    recording_files: files,
  };
  return {
    event: 'recording.completed',
    event_ts: envelope.eventTs ?? Date.now(),
    download_token: envelope.downloadToken ?? `eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzUxMiJ9.${randomBytes(96).toString('base64url')}`,
    payload: { account_id: envelope.accountId ?? ZOOM_SAMPLE_ACCOUNT_ID, object },
  };
}

/** Any other event (`meeting.started`, `meeting.ended`…) with a meeting object, for receivers that must ignore it. */
export function otherEvent(type: string, object: Record<string, unknown> = {}, accountId: string = ZOOM_SAMPLE_ACCOUNT_ID) {
  return {
    event: type,
    event_ts: Date.now(),
    payload: {
      account_id: accountId,
      object: {
        uuid: ZOOM_UUIDS.plain,
        id: 84_953_162_745,
        host_id: 'z8yCxjabcdEFGHfp8uQ',
        topic: 'Quarterly review with Acme',
        type: 2,
        start_time: isoSeconds(Date.now()),
        timezone: 'America/New_York',
        duration: 60,
        ...object,
      },
    },
  };
}

/** POSTs an event as Zoom's webhook sender does and resolves what the receiver answered. */
export async function sendEvent(url: string, secretToken: string, event: unknown, options: SendEventOptions = {}): Promise<ZoomDelivery> {
  // Bytes go out as a Uint8Array of their own, exactly as given.
  const body = options.rawBytes === undefined ? (options.rawBody ?? JSON.stringify(event)) : new Uint8Array(options.rawBytes);
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const signed = signZoomRequest(secretToken, body, timestamp);
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    'user-agent': 'Zoom Marketplace/1.0a',
    'x-zm-request-timestamp': signed['x-zm-request-timestamp'],
    'x-zm-trackingid': `v=2.0;clid=us06;rid=WEB_${randomBytes(16).toString('hex')}`,
  };
  if (!options.omitSignature) headers['x-zm-signature'] = options.signature ?? signed['x-zm-signature'];
  const started = performance.now();
  const response = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(options.timeoutMs ?? 15_000) });
  const text = await response.text();
  return { status: response.status, body: text, headers: Object.fromEntries(response.headers), ms: performance.now() - started };
}
