import { z } from 'zod';

import { explicitIdsSchema } from './calendar-event.ts';

/**
 * One recorded meeting as the bridge stores it (an inbound event's parsedPayload), whichever tool
 * recorded it: a Zoom cloud recording (`origin: zoom`, source `zoom`) or a recording posted to the
 * signed route (`origin: signed`, source `recording`). The recording mapper reads only this, so
 * "reprocess with today's rules" works on what was stored.
 */
export const recordingEventSchema = z.object({
  version: z.literal(1),
  origin: z.enum(['zoom', 'signed']),
  /** The meeting's id in the recording tool: Zoom's meeting uuid, the signed body's id. Imports coalesce on it. */
  meetingId: z.string().min(1),
  title: z.string().optional(),
  start: z.string().optional(),
  end: z.string().optional(),
  host: z.object({ email: z.string().optional(), name: z.string().optional() }).optional(),
  recordingUrl: z.string(),
  callUrl: z.string().optional(),
  attendees: z.array(z.object({ email: z.string(), name: z.string().optional() })),
  /** Ids the sender named explicitly (already 18 characters). */
  explicitIds: explicitIdsSchema.optional(),
  /** Zoom: the meeting uuid whose participants the mapper reads (the attendees are not in the event). */
  zoomUuid: z.string().optional(),
  /** Zoom: the meeting number (`id`), which a calendar event's Zoom join link carries too. */
  zoomMeetingId: z.string().optional(),
});

export type RecordingEvent = z.infer<typeof recordingEventSchema>;

/** The recorded meeting a stored recording is a state of: imports of it are one delivery. */
export function recordingRecordKey(parsedPayload: unknown): string | undefined {
  const parsed = recordingEventSchema.safeParse(parsedPayload);
  return parsed.success ? `${parsed.data.origin}:${parsed.data.meetingId}` : undefined;
}
