import { z } from 'zod';

import type { RecordingEvent } from '../calendar/recording-event.ts';
import { httpUrl } from '../core/http-url.ts';

/** The parts of Zoom's events the bridge reads (docs/protocols.md §8); loose, as Zoom adds fields. */
export const zoomEnvelopeSchema = z.looseObject({ event: z.string().min(1).max(200), event_ts: z.number().optional(), payload: z.unknown() });

export const urlValidationPayloadSchema = z.looseObject({ plainToken: z.string().min(1).max(256) });

const recordingFile = z.looseObject({
  recording_start: z.string().optional(),
  recording_end: z.string().optional(),
  status: z.string().optional(),
});

export const recordingCompletedPayloadSchema = z.looseObject({
  account_id: z.string().optional(),
  object: z.looseObject({
    uuid: z.string().min(1).max(256),
    id: z.union([z.number(), z.string()]).optional(),
    host_email: z.string().max(320).optional(),
    topic: z.string().max(1024).optional(),
    start_time: z.string().optional(),
    duration: z.number().optional(),
    // Forwarded as the import's recordingUrl: only http(s), as on every route (src/core/http-url.ts).
    share_url: httpUrl().max(2048),
    recording_files: z.array(recordingFile).max(1000).optional(),
  }),
});

type RecordingCompleted = z.infer<typeof recordingCompletedPayloadSchema>;

const iso = (text: string | undefined): string | undefined => {
  const ms = text === undefined ? NaN : Date.parse(text);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
};

/** `end` when it is after `start` (or there is no start to be after); undefined otherwise. */
export const endAfter = (start: string | undefined, end: string | undefined): string | undefined =>
  end === undefined || (start !== undefined && !(Date.parse(end) > Date.parse(start))) ? undefined : end;

/**
 * `recording.completed` → the stored recording. The end (docs/protocols.md §8) is the last
 * `recording_end` of the files when that is after the start; else start + duration (minutes; Zoom
 * sometimes sends 0); else there is none. An import never ends at or before it starts.
 * Participants are not in the event: the mapper reads them later by the meeting uuid.
 */
/** An instant as ISO text, or none past the range a date holds (a duration of 10^9 minutes): never a RangeError on the request path. */
const isoAt = (ms: number): string | undefined => {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
};

export function normaliseRecording(payload: RecordingCompleted): RecordingEvent {
  const meeting = payload.object;
  const start = iso(meeting.start_time);
  const ends = (meeting.recording_files ?? []).map((file) => iso(file.recording_end)).filter((end): end is string => end !== undefined);
  const fromFiles = ends.sort().at(-1);
  const fromDuration =
    start !== undefined && meeting.duration !== undefined && meeting.duration > 0 ? isoAt(Date.parse(start) + meeting.duration * 60_000) : undefined;
  const end = endAfter(start, fromFiles) ?? fromDuration;
  return {
    version: 1,
    origin: 'zoom',
    meetingId: meeting.uuid,
    ...(meeting.topic ? { title: meeting.topic } : {}),
    ...(start ? { start } : {}),
    ...(end ? { end } : {}),
    ...(meeting.host_email ? { host: { email: meeting.host_email } } : {}),
    recordingUrl: meeting.share_url,
    attendees: [],
    zoomUuid: meeting.uuid,
    // The meeting number a calendar's Zoom join link carries (docs/protocols.md §8): what ties the recording to its calendar event.
    ...(meeting.id === undefined || String(meeting.id) === '' ? {} : { zoomMeetingId: String(meeting.id) }),
  };
}
