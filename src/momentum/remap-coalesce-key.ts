import { boundKey } from '../store/store-values.ts';
import type { RemapRequest } from './schemas.ts';

/**
 * The meeting a remap is about, as a coalescing key: remaps of one meeting supersede each other
 * while pending and never run at the same time. Source first (the strongest identity), then
 * Momentum's own id, else host + start + title. Bounded (a hash past 200 characters), so a
 * 6 000-character title still makes a key every index can hold.
 */
export function remapCoalesceKey(request: RemapRequest): string {
  return boundKey(meetingNaming(request));
}

/**
 * A remap mapped from a source record of a known meeting (docs/calendars.md, meeting identity):
 * coalesced per meeting, whichever of its sources it came from and whatever start it names, so a
 * moved meeting's remap supersedes its earlier state's and is compared with what was last sent.
 */
export const meetingCoalesceKey = (meetingId: number): string => `meeting-id:${meetingId}`;

/**
 * How a remap names its meeting to Momentum: its source, else Momentum's own id, else host, start
 * and title. Two remaps that name their meeting alike reach the same meeting.
 */
export function meetingNaming(request: RemapRequest): string {
  if (request.source) return `source:${request.source.type}:${request.source.id}`;
  const details = request.meetingDetails;
  if (details?.momentumMeetingId !== undefined) return `momentum:${details.momentumMeetingId}`;
  // Emails compare case-insensitively; one instant written two ways (".000Z" or not) is one meeting.
  const host = details?.hostEmail?.toLowerCase() ?? '';
  return `meeting:${host}|${normaliseInstant(details?.startTime)}|${details?.title ?? ''}`;
}

function normaliseInstant(value: string | undefined): string {
  if (value === undefined) return '';
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? value : new Date(ms).toISOString();
}
