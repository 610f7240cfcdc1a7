import type { z } from 'zod';

import { findUnstorable, type UnstorableValue } from '../http/inbound-text.ts';
import { mapEventJobsFor } from '../mapping/map-event-job.ts';
import type { InboundEvent, Inbox, NewJob } from '../store/types.ts';
import { genericCalendarEventSchema, genericRecordingSchema } from './generic-event-schema.ts';
import { normaliseGenericEvent, normaliseGenericRecording } from './normalise.ts';
import { recordingRecordKey } from './recording-event.ts';
import { type HeaderPrefix, type VerifyFailure, verifyStandardWebhook } from './standard-webhooks.ts';

/**
 * `POST /calendar/events` without the HTTP: verify the Standard Webhooks signature on the raw
 * bytes, then the JSON, then the schema; store the event once per webhook-id with its mapping job.
 * Each refusal happens before anything is stored.
 */

export type GenericReceiveOutcome =
  /** A header is missing or malformed: the request is wrong, whoever sent it. */
  | { kind: 'invalid_headers'; reason: Extract<VerifyFailure, 'missing_header' | 'invalid_id' | 'invalid_timestamp'>; message: string }
  | { kind: 'unauthenticated'; reason: Extract<VerifyFailure, 'stale_timestamp' | 'bad_signature'>; message: string }
  | { kind: 'invalid_json' }
  /** Text no store can keep (U+0000, an unpaired surrogate) or absurd nesting, anywhere in the body. */
  | { kind: 'unstorable'; problem: UnstorableValue }
  | { kind: 'invalid_body'; issues: z.core.$ZodIssue[] }
  | { kind: 'stored'; webhookId: string; event: InboundEvent }
  /** The same webhook-id again (a sender's retry): acknowledged, not stored or mapped again. */
  | { kind: 'duplicate'; webhookId: string };

export interface GenericReceiverDeps {
  secrets: readonly string[];
  store: Pick<Inbox, 'ingest'>;
  jobsFor: (event: InboundEvent) => NewJob[];
  now?: () => number;
}

export interface GenericDelivery {
  webhookId: string | undefined;
  webhookTimestamp: string | undefined;
  webhookSignature: string | undefined;
  /** The names the three headers came under (`webhook-*` unless given). */
  headerPrefix?: HeaderPrefix;
  rawBody: Buffer;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function createGenericReceiver(deps: GenericReceiverDeps) {
  return async (delivery: GenericDelivery): Promise<GenericReceiveOutcome> => {
    const verified = verifyStandardWebhook(
      {
        id: delivery.webhookId,
        timestamp: delivery.webhookTimestamp,
        signature: delivery.webhookSignature,
        rawBody: delivery.rawBody,
        ...(delivery.headerPrefix ? { prefix: delivery.headerPrefix } : {}),
      },
      deps.secrets,
      { nowMs: (deps.now ?? Date.now)() },
    );
    if (!verified.ok) {
      const { reason, message } = verified;
      return reason === 'stale_timestamp' || reason === 'bad_signature'
        ? { kind: 'unauthenticated', reason, message }
        : { kind: 'invalid_headers', reason, message };
    }

    let json: unknown;
    try {
      json = JSON.parse(utf8.decode(delivery.rawBody));
    } catch {
      return { kind: 'invalid_json' };
    }
    // Before the schema, so the 400 names the unstorable text wherever it is: the raw payload is
    // stored as sent, and the event id (any non-space characters) would carry a NUL into the
    // meeting's coalescing key.
    const problem = findUnstorable(json);
    if (problem !== undefined) return { kind: 'unstorable', problem };
    // A recording (`kind: recording`) becomes an import; anything else is a meeting change.
    if (typeof json === 'object' && json !== null && (json as { kind?: unknown }).kind === 'recording') {
      const recording = genericRecordingSchema.safeParse(json);
      if (!recording.success) return { kind: 'invalid_body', issues: recording.error.issues };
      const stored = await deps.store.ingest(
        {
          source: 'recording',
          senderId: verified.id,
          rawPayload: delivery.rawBody.toString('utf8'),
          events: [{ dedupeKey: `recording:${verified.id}`, parsedPayload: normaliseGenericRecording(recording.data) }],
        },
        mapEventJobsFor(recordingRecordKey),
      );
      const created = stored.created[0];
      return created === undefined ? { kind: 'duplicate', webhookId: verified.id } : { kind: 'stored', webhookId: verified.id, event: created };
    }
    const parsed = genericCalendarEventSchema.safeParse(json);
    if (!parsed.success) return { kind: 'invalid_body', issues: parsed.error.issues };

    const result = await deps.store.ingest(
      {
        source: 'calendar',
        senderId: verified.id,
        rawPayload: delivery.rawBody.toString('utf8'),
        // Standard Webhooks: a retry carries the same webhook-id, so it is the dedupe key.
        events: [{ dedupeKey: `calendar:${verified.id}`, parsedPayload: normaliseGenericEvent(parsed.data) }],
      },
      deps.jobsFor,
    );
    const event = result.created[0];
    return event === undefined ? { kind: 'duplicate', webhookId: verified.id } : { kind: 'stored', webhookId: verified.id, event };
  };
}
