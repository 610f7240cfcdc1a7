import type { MeetingVersion } from './meeting-order.ts';

/**
 * Meeting identity as the store keeps it (docs/calendars.md, "One meeting across sources"): which
 * source records (a Google event, an Outlook event, a Salesforce Event, a signed event, a Zoom
 * recording) are one meeting. The rules of what joins what are the caller's; the store applies
 * them in one transaction per source state, on either engine.
 */

/** One state of one source record, as the map-event job read it. */
export interface MeetingSourceState {
  /** The source record: the map-event job's serial key (`google:google:<event id>`). */
  recordKey: string;
  /** The system it came from (the inbound event's source): timed links join only records of different systems. */
  source: string;
  /** Links that name one meeting whatever its time (`ical:<uid>`): every record holding one is that meeting. */
  exactLinks: readonly string[];
  /**
   * Links that name a meeting only near one start (`zoom:<number>`, `join:<url>`, `host:<email>`):
   * a record of another system holding the link with a start within `toleranceMs` is the same
   * meeting, when exactly one meeting does so (two is a tie, and nothing joins on that link).
   */
  timedLinks: readonly string[];
  /** The meeting's start (epoch ms); without one, timed links are kept but join nothing. */
  startAt?: number;
  toleranceMs: number;
  host?: string;
  title?: string;
  /** The source says the meeting is cancelled (or deleted). */
  cancelled: boolean;
  /** The id the record's meeting was imported under (a recording's import `meeting.id`). */
  importedId?: string;
  /** The order of this state among the record's states (meeting-order.ts): an older one changes nothing. */
  version: MeetingVersion;
}

export interface ResolvedMeeting {
  meetingId: number;
  /** Every meeting joined into this one (now or before): their ids still name it. */
  absorbedIds: number[];
  /** The import ids of the meeting's sources (recordings), oldest source first. */
  importedIds: string[];
  /** The state was older than one already recorded for its record: nothing was changed. */
  stale: boolean;
}

/** One source record of a meeting, as the admin's meeting page lists it. */
export interface MeetingSource {
  recordKey: string;
  meetingId: number;
  source: string;
  startAt: number | null;
  host: string | null;
  title: string | null;
  cancelled: boolean;
  importedId: string | null;
  eventId: number;
  createdAt: number;
  updatedAt: number;
}

export interface StoredMeeting {
  id: number;
  createdAt: number;
  /** Meetings joined into it: their ids name it too. */
  absorbedIds: number[];
  sources: MeetingSource[];
}

export interface MeetingIdentities {
  /**
   * The meeting of one source state: the meeting its record, its exact links or (unambiguously)
   * its timed links already belong to, a new one when none does; several found are joined into
   * the oldest (their sources, links and match records move to it). The record's facts and links
   * are replaced by this state's, unless an older state than the one recorded. One transaction.
   */
  resolve(state: MeetingSourceState, now?: number): Promise<ResolvedMeeting>;
  /** The meeting an id names (a joined meeting's id names the one it joined), with its sources; undefined for an unknown id. */
  meeting(id: number): Promise<StoredMeeting | undefined>;
  /** The meeting a source record (a serial key) belongs to, if the bridge has seen it. */
  meetingOfRecord(recordKey: string): Promise<number | undefined>;
}
