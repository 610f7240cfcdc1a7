import type { NewJob } from './types.ts';

/**
 * The order of one meeting's states. A remap made from an older state of a source record must
 * never supersede, nor be sent after, one made from a newer state, whatever order mapping finishes
 * in and on whichever instance. "Newer" comes from the source, never from when mapping ended:
 * the source's own version (a Salesforce record's SystemModstamp, a calendar event's `updated`)
 * when both states carry one and they differ, else the order of receipt (the inbound event's id,
 * given by the database in commit order of the ingest). docs/delivery.md says what operators see.
 */
export interface MeetingVersion {
  sourceVersion: number | null;
  eventId: number;
}

/** True when `candidate` is older than `current`: then it must not be sent. */
export function isOlderState(candidate: MeetingVersion, current: MeetingVersion): boolean {
  if (candidate.sourceVersion !== null && current.sourceVersion !== null && candidate.sourceVersion !== current.sourceVersion) {
    return candidate.sourceVersion < current.sourceVersion;
  }
  return candidate.eventId < current.eventId;
}

/**
 * Jobs made from an inbound event for a meeting take part in its order. Operator actions do not:
 * a manual remap has no source state, and a replay is an explicit "send this again".
 */
export function meetingVersionOf(job: NewJob): MeetingVersion | undefined {
  if (job.coalesceKey === undefined || job.eventId === undefined || job.replayOf !== undefined) return undefined;
  return { sourceVersion: job.sourceVersion ?? null, eventId: job.eventId };
}

export const staleReason = (newerJobId: number): string => `stale: made from an older state of the meeting than delivery ${newerJobId}`;
