import { describe, expect, it } from 'vitest';

import { normaliseGraphEvent } from '../../src/microsoft/normalise-graph-event.ts';
import { toUtc } from '../../src/microsoft/to-utc.ts';

const ANA = 'ana.rep@example.com';
const meeting = (fields: Record<string, unknown> = {}) => ({
  id: 'AAMkAD-1',
  iCalUId: '040000008200E00074C5B7101A82E008',
  subject: 'Pricing review',
  body: { contentType: 'html', content: '<p>see https://globex.lightning.force.com/lightning/r/Opportunity/0068d0000101XyZAAU/view</p>' },
  start: { dateTime: '2026-12-02T16:00:00.0000000', timeZone: 'UTC' },
  end: { dateTime: '2026-12-02T16:30:00.0000000', timeZone: 'UTC' },
  isAllDay: false,
  isCancelled: false,
  organizer: { emailAddress: { name: 'Ana Rep', address: ANA } },
  attendees: [
    { type: 'required', emailAddress: { name: 'Ana Rep', address: ANA } },
    { type: 'required', emailAddress: { name: 'Gail Buyer', address: 'gail@globex.com' } },
    { type: 'resource', emailAddress: { name: 'Room 4', address: 'room4@example.com' } },
  ],
  location: { displayName: 'Room 4' },
  onlineMeeting: { joinUrl: 'https://teams.microsoft.com/l/meetup-join/1' },
  lastModifiedDateTime: '2026-11-26T10:00:00.0000000Z',
  ...fields,
});

describe('normaliseGraphEvent', () => {
  it('when a meeting has an external attendee, then it becomes the provider-neutral calendar event', () => {
    expect(normaliseGraphEvent(meeting(), ANA, ['example.com'])).toEqual({
      kind: 'event',
      event: {
        version: 1,
        origin: 'microsoft',
        eventId: 'AAMkAD-1',
        iCalUId: '040000008200E00074C5B7101A82E008',
        calendarId: ANA,
        title: 'Pricing review',
        description: '<p>see https://globex.lightning.force.com/lightning/r/Opportunity/0068d0000101XyZAAU/view</p>',
        location: 'Room 4 https://teams.microsoft.com/l/meetup-join/1',
        conferenceUrls: ['https://teams.microsoft.com/l/meetup-join/1'],
        start: '2026-12-02T16:00:00.000Z',
        end: '2026-12-02T16:30:00.000Z',
        organizerEmail: ANA,
        attendees: [
          { email: ANA, name: 'Ana Rep', organizer: true },
          { email: 'gail@globex.com', name: 'Gail Buyer' },
          { email: 'room4@example.com', name: 'Room 4', resource: true },
        ],
        updated: '2026-11-26T10:00:00.0000000Z',
      },
    });
  });

  it('when it is a removed item, then it is stored as a cancellation naming only its id and mailbox', () => {
    expect(normaliseGraphEvent({ id: 'AAMkAD-1', '@removed': { reason: 'deleted' } }, ANA, ['example.com'])).toEqual({
      kind: 'event',
      event: { version: 1, origin: 'microsoft', status: 'cancelled', eventId: 'AAMkAD-1', calendarId: ANA },
    });
  });

  it('when it is a cancelled meeting, then it is stored as a cancellation with its UID, title, start and version', () => {
    expect(normaliseGraphEvent(meeting({ isCancelled: true }), ANA, ['example.com'])).toEqual({
      kind: 'event',
      event: {
        version: 1,
        origin: 'microsoft',
        status: 'cancelled',
        eventId: 'AAMkAD-1',
        calendarId: ANA,
        iCalUId: '040000008200E00074C5B7101A82E008',
        title: 'Pricing review',
        start: '2026-12-02T16:00:00.000Z',
        updated: '2026-11-26T10:00:00.0000000Z',
      },
    });
  });

  it.each([
    ['an all-day event', { isAllDay: true }, 'all-day event'],
    ['an internal-only meeting', { attendees: [{ type: 'required', emailAddress: { address: 'bo@example.com' } }] }, 'no external attendees'],
    ['a start in an unknown zone', { start: { dateTime: '2026-12-02T08:00:00', timeZone: 'Mars Standard Time' } }, 'unreadable start time'],
  ])('when it is %s, then it is skipped with the reason', (_what, fields, reason) => {
    expect(normaliseGraphEvent(meeting(fields), ANA, ['example.com'])).toEqual({ kind: 'skipped', eventId: 'AAMkAD-1', reason });
  });

  it('when an item is not an event at all, then it is skipped as unreadable', () => {
    expect(normaliseGraphEvent({ id: 7 }, ANA, [])).toMatchObject({ kind: 'skipped', reason: 'unreadable event' });
  });
});

describe('toUtc', () => {
  it.each([
    [{ dateTime: '2026-12-02T16:00:00.0000000', timeZone: 'UTC' }, '2026-12-02T16:00:00.000Z'],
    // Windows zone ids, as Outlook writes them, across a daylight-saving boundary.
    [{ dateTime: '2026-12-02T08:00:00.0000000', timeZone: 'Pacific Standard Time' }, '2026-12-02T16:00:00.000Z'],
    [{ dateTime: '2026-07-02T08:00:00.0000000', timeZone: 'Pacific Standard Time' }, '2026-07-02T15:00:00.000Z'],
    [{ dateTime: '2026-03-29T03:30:00', timeZone: 'W. Europe Standard Time' }, '2026-03-29T01:30:00.000Z'],
    // IANA names, and instants that already carry an offset.
    [{ dateTime: '2026-12-02T17:00:00', timeZone: 'Europe/Berlin' }, '2026-12-02T16:00:00.000Z'],
    [{ dateTime: '2026-12-02T16:00:00Z', timeZone: 'Tokyo Standard Time' }, '2026-12-02T16:00:00.000Z'],
    [{ dateTime: '2026-12-02T16:00:00.1234567', timeZone: null }, '2026-12-02T16:00:00.123Z'],
  ])('when Graph sends %j, then the instant is %s', (value, expected) => {
    expect(toUtc(value)).toBe(expected);
  });

  it('when the text or the zone cannot be read, then there is no instant', () => {
    expect(toUtc({ dateTime: 'tomorrow', timeZone: 'UTC' })).toBeUndefined();
    expect(toUtc({ dateTime: '2026-12-02T08:00:00', timeZone: 'Nowhere/Else' })).toBeUndefined();
  });
});
