import { MAX_ATTENDEES } from '../core/attendee-bound.ts';
import type { ZoomParticipantList } from './zoom-client.ts';

export interface ZoomAttendees {
  /** One per email address, in Zoom's order, at most MAX_ATTENDEES. */
  attendees: Array<{ email: string; name?: string }>;
  /** The host's name, from the host's own participant entry (read before the cut, so a late host still has it). */
  hostName: string | undefined;
  /** Set when attendees were left out: what to keep on record with the delivery. */
  truncated?: string;
}

/**
 * Zoom's participant list → the import's attendees (docs/recordings.md): Zoom lists a participant
 * once per join, so one attendee per email address (case aside); participants without an address
 * (dial-in callers, guests not signed in) are left out; past MAX_ATTENDEES the rest are cut, and
 * the cut is said, with how many there were.
 */
export function zoomAttendees(list: ZoomParticipantList | undefined, hostEmail: string | undefined): ZoomAttendees {
  const byEmail = new Map<string, { email: string; name?: string }>();
  for (const participant of list?.participants ?? []) {
    const key = participant.email?.toLowerCase();
    if (key && !byEmail.has(key)) byEmail.set(key, { email: participant.email!, ...(participant.name ? { name: participant.name } : {}) });
  }
  const everyone = [...byEmail.values()];
  const hostName = hostEmail === undefined ? undefined : byEmail.get(hostEmail.toLowerCase())?.name;
  const cut = everyone.length > MAX_ATTENDEES || list?.more === true;
  if (!cut) return { attendees: everyone, hostName };
  const counted = list?.more === true ? `more than ${everyone.length}` : String(everyone.length);
  return {
    attendees: everyone.slice(0, MAX_ATTENDEES),
    hostName,
    truncated: `attendees truncated: Zoom listed ${counted} participants with an email address; the import carries the first ${Math.min(everyone.length, MAX_ATTENDEES)}`,
  };
}
