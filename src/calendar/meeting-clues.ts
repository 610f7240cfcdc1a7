import { conferencingUrlsIn } from '../mapping/join-links.ts';
import type { MeetingClues } from '../mapping/mapping-outcome.ts';
import type { CalendarCancellation, CalendarEvent } from './calendar-event.ts';
import type { RecordingEvent } from './recording-event.ts';

/**
 * What a calendar event or a recording tells about which meeting it is (docs/calendars.md, "One
 * meeting across sources"): the map-event handler turns these clues into identity links.
 */

/** An iCalendar UID names one meeting, unless a recurring series' instances all share it. */
const ownUid = (event: Pick<CalendarEvent, 'iCalUId' | 'recurringInstance'>) =>
  event.iCalUId !== undefined && event.iCalUId !== '' && event.recurringInstance !== true ? { iCalUId: event.iCalUId } : {};

/** A meeting in a calendar: its UID, its join links (given as such, or Zoom, Meet and Teams links in its location or text), start, host and title. */
export function calendarClues(event: CalendarEvent, hostEmail: string | undefined): MeetingClues {
  const joinUrls = [...(event.conferenceUrls ?? []), ...conferencingUrlsIn(event.location), ...conferencingUrlsIn(event.description)];
  return {
    ...ownUid(event),
    ...(joinUrls.length > 0 ? { joinUrls } : {}),
    start: event.start,
    ...(hostEmail === undefined ? {} : { hostEmail }),
    ...(event.title ? { title: event.title } : {}),
  };
}

/** A cancellation names its meeting by what it still carries: its UID and start, when it has them. */
export function cancellationClues(event: CalendarCancellation): MeetingClues {
  return { ...ownUid(event), ...(event.start === undefined ? {} : { start: event.start }), ...(event.title ? { title: event.title } : {}) };
}

/** A recording: its Zoom meeting number, its call link, start, host and title. */
export function recordingClues(recording: RecordingEvent, hostEmail: string | undefined): MeetingClues {
  return {
    ...(recording.zoomMeetingId === undefined ? {} : { zoomMeetingId: recording.zoomMeetingId }),
    ...(recording.callUrl === undefined ? {} : { joinUrls: [recording.callUrl] }),
    ...(recording.start === undefined ? {} : { start: recording.start }),
    ...(hostEmail === undefined ? {} : { hostEmail }),
    ...(recording.title ? { title: recording.title } : {}),
  };
}
