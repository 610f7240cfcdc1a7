import { describe, expect, it } from 'vitest';

import type { CalendarEvent } from '../../src/calendar/calendar-event.ts';
import { calendarClues, cancellationClues, recordingClues } from '../../src/calendar/meeting-clues.ts';

const event = (fields: Partial<CalendarEvent> = {}): CalendarEvent => ({
  version: 1,
  origin: 'google',
  eventId: 'evt-1',
  start: '2026-03-02T16:00:00Z',
  attendees: [],
  ...fields,
});

describe('meeting clues', () => {
  it('when a calendar event has a UID, a conference link and a Zoom link in its text, then all are clues, with its start, host and title', () => {
    const clues = calendarClues(
      event({
        iCalUId: 'evt-1@google.com',
        title: 'QBR',
        conferenceUrls: ['https://meet.google.com/abc-defg-hij'],
        location: 'Room 4',
        description: 'Join https://us02web.zoom.us/j/85012345678?pwd=x, deck https://docs.example.com/d',
      }),
      'ana@example.com',
    );

    expect(clues).toEqual({
      iCalUId: 'evt-1@google.com',
      joinUrls: ['https://meet.google.com/abc-defg-hij', 'https://us02web.zoom.us/j/85012345678?pwd=x'],
      start: '2026-03-02T16:00:00Z',
      hostEmail: 'ana@example.com',
      title: 'QBR',
    });
  });

  it('when the event is an instance of a recurring series, then the series’ shared UID is no clue: each instance is a meeting of its own', () => {
    expect(calendarClues(event({ iCalUId: 'series@google.com', recurringInstance: true }), undefined)).toEqual({ start: '2026-03-02T16:00:00Z' });
    expect(
      cancellationClues({ version: 1, origin: 'google', status: 'cancelled', eventId: 'x', iCalUId: 'series@google.com', recurringInstance: true }),
    ).toEqual({});
  });

  it('when a recording has a Zoom meeting number and a call link, then both are clues', () => {
    const clues = recordingClues(
      {
        version: 1,
        origin: 'zoom',
        meetingId: 'uuid==',
        recordingUrl: 'https://zoom.us/rec/share/x',
        attendees: [],
        zoomMeetingId: '85012345678',
        callUrl: 'https://zoom.us/j/85012345678',
        start: '2026-03-02T16:02:00Z',
      },
      'bo@example.com',
    );

    expect(clues).toEqual({
      zoomMeetingId: '85012345678',
      joinUrls: ['https://zoom.us/j/85012345678'],
      start: '2026-03-02T16:02:00Z',
      hostEmail: 'bo@example.com',
    });
  });
});
