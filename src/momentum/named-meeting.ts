import type { ListedMeeting } from './meeting-list.ts';
import type { ImportRequest, RemapRequest } from './schemas.ts';

/**
 * A meeting as a remap or an import names it, reduced to what Momentum's listing can be compared
 * with. The listing carries no source (docs/protocols.md §1), so a meeting is found by Momentum's
 * own id when the delivery named it, else by its start, title and host.
 */
export interface NamedMeeting {
  momentumId?: string;
  /** Epoch ms. */
  startsAt?: number;
  title?: string;
  /** Lower case. */
  host?: string;
}

const instant = (value: string | undefined): number | undefined => {
  const ms = value === undefined ? Number.NaN : Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
};

function named(parts: {
  momentumId?: number | string | undefined;
  start?: string | undefined;
  title?: string | undefined;
  host?: string | undefined;
}): NamedMeeting {
  const startsAt = instant(parts.start);
  const title = parts.title?.trim();
  return {
    ...(parts.momentumId === undefined ? {} : { momentumId: String(parts.momentumId) }),
    ...(startsAt === undefined ? {} : { startsAt }),
    ...(title ? { title } : {}),
    ...(parts.host ? { host: parts.host.trim().toLowerCase() } : {}),
  };
}

export function namedInRemap(request: RemapRequest): NamedMeeting {
  const details = request.meetingDetails;
  return named({ momentumId: details?.momentumMeetingId, start: details?.startTime, title: details?.title, host: details?.hostEmail });
}

export function namedInImport(request: ImportRequest): NamedMeeting {
  const meeting = request.meeting;
  return named({ start: meeting.startTime, title: meeting.title, host: meeting.host?.email });
}

export function namedInListing(meeting: ListedMeeting): NamedMeeting {
  return named({ momentumId: meeting.id, start: meeting.startTime, title: meeting.title, host: meeting.host?.email });
}

/** Whether `other` is the meeting `meeting` names: Momentum's id when it names one, else the same start with its title and host agreeing (each compared when named). */
export function fitsNamed(meeting: NamedMeeting, other: NamedMeeting): boolean {
  if (meeting.momentumId !== undefined) return other.momentumId === meeting.momentumId;
  if (meeting.startsAt === undefined || other.startsAt !== meeting.startsAt) return false;
  if (meeting.host !== undefined && other.host !== meeting.host) return false;
  return meeting.title === undefined || other.title === meeting.title;
}

/**
 * The listed meeting a delivery named: the one with its Momentum id, else the only one starting at
 * the same instant whose title and host agree with what the delivery named. Two that fit equally
 * are no answer: the bridge cannot tell which it was.
 */
export function findNamed<T>(meeting: NamedMeeting, listed: readonly T[], view: (item: T) => NamedMeeting): T | undefined {
  const fits = listed.filter((item) => fitsNamed(meeting, view(item)));
  return fits.length === 1 || (meeting.momentumId !== undefined && fits.length > 0) ? fits[0] : undefined;
}
