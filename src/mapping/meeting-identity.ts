import type { InboundEvent, MeetingSourceState } from '../store/types.ts';
import { joinLinkOf, zoomLink } from './join-links.ts';
import type { MappingOutcome } from './mapping-outcome.ts';

/**
 * How far apart two sources' starts may be and still be one meeting, when a timed link (a Zoom
 * number, a join link, the host) ties them: a recording starts when the host opens the call, a
 * few minutes either side of the calendar's time. docs/calendars.md documents it.
 */
export const START_TOLERANCE_MS = 5 * 60_000;

const present = <T>(value: T | undefined | false | ''): value is T => value !== undefined && value !== false && value !== '';

/**
 * The identity state of one mapped source state (docs/calendars.md, "One meeting across sources"):
 * its record key, the clues its integration read, and what its request names: a remap's source
 * (`source:<TYPE>:<id>`, the strongest identity) or Momentum id, its start and host; an import's id,
 * start, host and call link. A skip without clues (a Salesforce record that is no meeting) has none.
 */
export function sourceStateOf(event: Pick<InboundEvent, 'id' | 'source'>, recordKey: string, outcome: MappingOutcome): MeetingSourceState | undefined {
  const clues = outcome.clues;
  if (outcome.kind === 'skipped' && clues === undefined && outcome.cancelled !== true) return undefined;
  const request = outcome.kind === 'remap' ? outcome.request : undefined;
  const imported = outcome.kind === 'import' ? outcome.request.meeting : undefined;
  const start = clues?.start ?? request?.meetingDetails?.startTime ?? imported?.startTime;
  const startAt = start === undefined ? Number.NaN : Date.parse(start);
  const host = (clues?.hostEmail ?? request?.meetingDetails?.hostEmail ?? imported?.host?.email)?.trim().toLowerCase();
  const momentumId = request?.meetingDetails?.momentumMeetingId;
  const exactLinks = [
    clues?.iCalUId && `ical:${clues.iCalUId}`,
    request?.source && `source:${request.source.type}:${request.source.id}`,
    momentumId !== undefined && `momentum:${momentumId}`,
  ].filter(present);
  const timedLinks = [
    ...(clues?.joinUrls ?? []).map(joinLinkOf),
    imported?.callUrl === undefined ? undefined : joinLinkOf(imported.callUrl),
    clues?.zoomMeetingId === undefined ? undefined : zoomLink(clues.zoomMeetingId),
    host && `host:${host}`,
  ].filter(present);
  const title = clues?.title ?? request?.meetingDetails?.title ?? imported?.title;
  return {
    recordKey,
    source: event.source,
    exactLinks,
    timedLinks,
    ...(Number.isNaN(startAt) ? {} : { startAt }),
    toleranceMs: START_TOLERANCE_MS,
    ...(host ? { host } : {}),
    ...(title ? { title } : {}),
    cancelled: outcome.kind === 'skipped' && outcome.cancelled === true,
    ...(imported?.id === undefined ? {} : { importedId: imported.id }),
    version: { sourceVersion: outcome.sourceVersion ?? null, eventId: event.id },
  };
}
