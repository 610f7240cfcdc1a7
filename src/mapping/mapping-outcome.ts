import type { MatchRecord } from '../matching/types.ts';
import type { ImportRequest, RemapFlags, RemapRequest } from '../momentum/schemas.ts';
import type { JobPriority } from '../store/types.ts';

/**
 * What a stored event tells about which meeting it is (docs/calendars.md, "One meeting across
 * sources"), read by its integration from the stored payload. The map-event handler adds what the
 * outcome's request names (a start, a host, a source) and resolves the meeting from both.
 */
export interface MeetingClues {
  /** An iCalendar UID naming this one meeting (never one a recurring series' instances share). */
  iCalUId?: string;
  /** Conferencing links the meeting carries (its join URLs), as the source gives them. */
  joinUrls?: readonly string[];
  /** The Zoom meeting number (shared by a recurring meeting's occurrences, so it joins only near one start). */
  zoomMeetingId?: string;
  /** ISO 8601. */
  start?: string;
  hostEmail?: string;
  title?: string;
}

/** What mapping one inbound record decides: a remap to enqueue, or nothing, with why. */
export type MappingOutcome =
  | {
      kind: 'remap';
      request: RemapRequest;
      flags: RemapFlags;
      coalesceKey: string;
      /**
       * Which mapping rule produced it, for the mapping metrics (`sobject:Event` for Salesforce;
       * `explicit_ids`, `salesforce_link`, `attendees` for the calendar). A short fixed name, never data.
       */
      rule?: string;
      /** The source's own version of the state mapped (epoch ms), read by the integration from its payload. */
      sourceVersion?: number;
      /** How the records were matched, stored with the mapping run (calendar events and recordings). */
      match?: MatchRecord;
      clues?: MeetingClues;
      /** The remap's priority class when it is not a live change (a reconcile's remaps are bulk work). */
      priority?: JobPriority;
    }
  /**
   * A meeting Momentum never saw (a recording): imported, coalesced per its id. `note`: what the
   * mapping left out (attendees past the bound), kept as the event's reason beside its delivery.
   */
  | { kind: 'import'; request: ImportRequest; rule?: string; sourceVersion?: number; note?: string; match?: MatchRecord; clues?: MeetingClues }
  /**
   * `match`: the match record when matching found nothing to send (no match, or a tie held).
   * `cancelled`: the source cancelled (or deleted) the meeting: nothing is sent, and what is pending
   * for the meeting is cancelled. A meeting skipped carries its clues, so it is still one meeting
   * with its other sources.
   */
  | { kind: 'skipped'; reason: string; match?: MatchRecord; cancelled?: true; sourceVersion?: number; clues?: MeetingClues };

export const skipped = (reason: string, match?: MatchRecord): MappingOutcome => ({ kind: 'skipped', reason, ...(match === undefined ? {} : { match }) });
