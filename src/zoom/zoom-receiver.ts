import { recordingRecordKey } from '../calendar/recording-event.ts';
import { findUnstorable, type UnstorableValue } from '../http/inbound-text.ts';
import { mapEventJobsFor } from '../mapping/map-event-job.ts';
import type { Inbox } from '../store/types.ts';
import { normaliseRecording, recordingCompletedPayloadSchema, urlValidationPayloadSchema, zoomEnvelopeSchema } from './zoom-event.ts';
import { urlValidationAnswer, verifyZoomSignature } from './zoom-signature.ts';

/** What one POST from Zoom came to; the router answers it in Zoom's terms. */
export type ZoomReceiveOutcome =
  | { kind: 'unauthorized'; reason: string }
  | { kind: 'invalid'; reason: string }
  /** Signed, but holding text no store keeps as sent (U+0000, an unpaired surrogate) or nested too deep. */
  | { kind: 'unstorable'; problem: UnstorableValue }
  | { kind: 'validation'; answer: { plainToken: string; encryptedToken: string } }
  /** Stored before this resolves; `duplicate`: Zoom's retry of a recording already stored. */
  | { kind: 'stored'; meetingId: string; eventId?: number; duplicate: boolean }
  | { kind: 'ignored'; event: string };

export interface ZoomReceiverDeps {
  /** ZOOM_WEBHOOK_SECRET_TOKENS (not empty). */
  secrets: readonly string[];
  store: Pick<Inbox, 'ingest'>;
  now?: () => number;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Verify on the raw bytes (docs/protocols.md §8) before reading anything else, so a forged body is
 * refused for its signature whatever it holds; then decode (UTF-8, strictly) and parse; then refuse
 * text no store keeps as sent, wherever it is and whatever the event (the raw body is stored as
 * received); then: answer `endpoint.url_validation`, store a `recording.completed` with its mapping
 * job (de-duplicated on the meeting uuid, so Zoom's retries are acknowledged and not processed
 * again), acknowledge anything else as ignored.
 */
export function createZoomReceiver(deps: ZoomReceiverDeps) {
  const now = deps.now ?? Date.now;
  const jobsFor = mapEventJobsFor(recordingRecordKey);
  return async (body: Buffer, headers: { signature: string | undefined; timestamp: string | undefined }): Promise<ZoomReceiveOutcome> => {
    const check = verifyZoomSignature(deps.secrets, headers, body, now());
    if (!check.ok) return { kind: 'unauthorized', reason: check.reason };
    let text: string;
    let json: unknown;
    try {
      text = utf8.decode(body);
      json = JSON.parse(text);
    } catch {
      return { kind: 'invalid', reason: 'body is not UTF-8 JSON' };
    }
    const problem = findUnstorable(json);
    if (problem !== undefined) return { kind: 'unstorable', problem };
    const envelope = zoomEnvelopeSchema.safeParse(json);
    if (!envelope.success) return { kind: 'invalid', reason: 'expected a Zoom event {event, payload}' };
    const { event, payload } = envelope.data;
    if (event === 'endpoint.url_validation') {
      const validation = urlValidationPayloadSchema.safeParse(payload);
      if (!validation.success) return { kind: 'invalid', reason: 'endpoint.url_validation needs payload.plainToken' };
      // Answered with the token that signed it, so during a rotation either token validates.
      return { kind: 'validation', answer: urlValidationAnswer(check.secret, validation.data.plainToken) };
    }
    if (event !== 'recording.completed') return { kind: 'ignored', event };
    const recording = recordingCompletedPayloadSchema.safeParse(payload);
    if (!recording.success) {
      const issue = recording.error.issues[0];
      const at = issue?.path.join('.') || 'its object';
      // A field that is there but wrong (a javascript: share_url) is named with what is wrong, not called missing.
      return { kind: 'invalid', reason: issue?.code === 'invalid_format' ? `recording.completed ${at}: ${issue.message}` : `recording.completed lacks ${at}` };
    }
    const stored = normaliseRecording(recording.data);
    const result = await deps.store.ingest(
      {
        source: 'zoom',
        ...(recording.data.account_id ? { senderId: recording.data.account_id } : {}),
        rawPayload: text,
        events: [{ dedupeKey: `zoom:recording:${stored.meetingId}`, parsedPayload: stored }],
      },
      jobsFor,
    );
    const created = result.created[0];
    return { kind: 'stored', meetingId: stored.meetingId, ...(created ? { eventId: created.id } : {}), duplicate: created === undefined };
  };
}
