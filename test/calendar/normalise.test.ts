import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { genericCalendarEventSchema } from '../../src/calendar/generic-event-schema.ts';
import { normaliseGenericEvent } from '../../src/calendar/normalise.ts';
import { normaliseGoogleEvent } from '../../src/google/normalise-google-event.ts';

const fixture = JSON.parse(readFileSync(new URL('../fixtures/google/events-list-incremental.json', import.meta.url), 'utf8')) as { items: unknown[] };
const CALENDAR = 'ana.rep@example.com';

const googleEvent = (overrides: Record<string, unknown>) => ({
  id: 'evt-1',
  status: 'confirmed',
  summary: 'Call',
  start: { dateTime: '2026-03-02T16:00:00Z' },
  end: { dateTime: '2026-03-02T16:30:00Z' },
  organizer: { email: CALENDAR },
  attendees: [{ email: CALENDAR, organizer: true }, { email: 'buyer@globex.test' }],
  updated: '2026-03-02T15:10:10.000Z',
  ...overrides,
});

describe('normaliseGoogleEvent', () => {
  it('when the fixture meeting is normalised, then it keeps what mapping needs and nothing of Google’s envelope', () => {
    const result = normaliseGoogleEvent(fixture.items[0], CALENDAR, ['example.com']);

    expect(result).toEqual({
      kind: 'event',
      event: {
        version: 1,
        origin: 'google',
        sourceType: 'GOOGLE_CALENDAR',
        eventId: '5q3vb0ak2lqk0s0m1o2p3q4r5s',
        iCalUId: '5q3vb0ak2lqk0s0m1o2p3q4r5s@google.com',
        calendarId: CALENDAR,
        title: 'Globex / Example Co – pricing review',
        description: 'Opportunity: https://example-dev-ed.lightning.force.com/lightning/r/Opportunity/0068d0000101XyZAAU/view',
        conferenceUrls: ['https://meet.google.com/abc-defg-hij'],
        start: '2026-03-02T16:00:00Z',
        end: '2026-03-02T16:30:00Z',
        organizerEmail: 'ana.rep@example.com',
        attendees: [
          { email: 'ana.rep@example.com', organizer: true },
          { email: 'hank.buyer@globex.test', name: 'Hank Buyer' },
          { email: 'room-4@resource.calendar.google.com', resource: true },
        ],
        extendedProperties: { private: { sfAccountId: '0018d0000101XyZAAU' }, shared: undefined },
        updated: '2026-03-02T15:10:10.000Z',
      },
    });
  });

  it('when the fixture’s deleted event is normalised, then it is a cancellation naming its id, calendar and version', () => {
    expect(normaliseGoogleEvent(fixture.items[1], CALENDAR, ['example.com'])).toEqual({
      kind: 'event',
      event: {
        version: 1,
        origin: 'google',
        status: 'cancelled',
        eventId: '0a1b2c3d4e5f6g7h8i9j0k1l2m',
        calendarId: CALENDAR,
        updated: '2026-03-02T15:09:00.000Z',
      },
    });
  });

  it('when an instance of a recurring series is normalised, then its shared UID is kept but marked, and a Zoom conference gives its join link', () => {
    const instance = googleEvent({
      id: 'series_20260302T160000Z',
      iCalUID: 'series@google.com',
      recurringEventId: 'series',
      conferenceData: {
        entryPoints: [
          { entryPointType: 'video', uri: 'https://us02web.zoom.us/j/85012345678?pwd=abc' },
          { entryPointType: 'phone', uri: 'tel:+1-555-0100' },
        ],
      },
    });

    expect(normaliseGoogleEvent(instance, CALENDAR, [])).toMatchObject({
      kind: 'event',
      event: { iCalUId: 'series@google.com', recurringInstance: true, conferenceUrls: ['https://us02web.zoom.us/j/85012345678?pwd=abc'] },
    });
  });

  it('when the event is all-day, then it is skipped with that reason', () => {
    const result = normaliseGoogleEvent(googleEvent({ start: { date: '2026-03-02' }, end: { date: '2026-03-03' } }), CALENDAR, ['example.com']);

    expect(result).toEqual({ kind: 'skipped', eventId: 'evt-1', reason: 'all-day event' });
  });

  it('when every attendee is internal or a room, then it is skipped for having no external attendees', () => {
    const attendees = [{ email: CALENDAR }, { email: 'bo@eu.example.com' }, { email: 'room@resource.calendar.google.com', resource: true }];

    expect(normaliseGoogleEvent(googleEvent({ attendees }), CALENDAR, ['example.com'])).toMatchObject({ kind: 'skipped', reason: 'no external attendees' });
  });

  it('when no internal domains are configured, then the calendar owner’s domain counts as internal', () => {
    expect(normaliseGoogleEvent(googleEvent({ attendees: [{ email: 'bo@example.com' }] }), CALENDAR, [])).toMatchObject({
      kind: 'skipped',
      reason: 'no external attendees',
    });
    expect(normaliseGoogleEvent(googleEvent({}), CALENDAR, []).kind).toBe('event');
  });

  it('when the item is not an event at all, then it is skipped as unreadable', () => {
    expect(normaliseGoogleEvent({ id: 42 }, CALENDAR, [])).toEqual({ kind: 'skipped', eventId: '(no id)', reason: 'unreadable event' });
  });
});

describe('normaliseGenericEvent', () => {
  it('when a valid body is normalised, then the organizer joins the attendees and explicit ids are kept at 18 characters', () => {
    const body = genericCalendarEventSchema.parse({
      version: 1,
      id: 'AAMkAGI2',
      sourceType: 'MS_TEAMS',
      title: 'Pricing',
      start: '2026-03-02T16:00:00+01:00',
      end: '2026-03-02T16:30:00+01:00',
      organizer: { email: 'ana.rep@example.com', name: 'Ana' },
      attendees: [{ email: 'hank.buyer@globex.test' }],
      salesforce: { opportunityId: '0065w000023STAm' },
    });

    expect(normaliseGenericEvent(body)).toEqual({
      version: 1,
      origin: 'calendar',
      sourceType: 'MS_TEAMS',
      eventId: 'AAMkAGI2',
      title: 'Pricing',
      start: '2026-03-02T16:00:00+01:00',
      end: '2026-03-02T16:30:00+01:00',
      organizerEmail: 'ana.rep@example.com',
      attendees: [{ email: 'ana.rep@example.com', name: 'Ana', organizer: true }, { email: 'hank.buyer@globex.test' }],
      explicitIds: { opportunityId: '0065w000023STAmAAO' },
    });
  });

  it('when a body names its UID and join link, then both are kept; with status cancelled, it is stored as the meeting’s cancellation', () => {
    const base = {
      version: 1,
      id: 'AAMkAGI2',
      sourceType: 'MS_TEAMS',
      title: 'Pricing',
      start: '2026-03-02T16:00:00Z',
      end: '2026-03-02T16:30:00Z',
      organizer: { email: 'ana.rep@example.com' },
      attendees: [{ email: 'hank.buyer@globex.test' }],
      iCalUId: '040000008200E00074C5B7101A82E008',
      joinUrl: 'https://teams.microsoft.com/l/meetup-join/19%3ameeting_abc%40thread.v2/0',
    };

    const confirmed = normaliseGenericEvent(genericCalendarEventSchema.parse(base));
    const cancelled = normaliseGenericEvent(genericCalendarEventSchema.parse({ ...base, status: 'cancelled' }));

    expect(confirmed).toMatchObject({ iCalUId: base.iCalUId, conferenceUrls: [base.joinUrl] });
    expect(confirmed).not.toHaveProperty('status');
    expect(cancelled).toEqual({
      version: 1,
      origin: 'calendar',
      status: 'cancelled',
      eventId: 'AAMkAGI2',
      iCalUId: base.iCalUId,
      title: 'Pricing',
      start: '2026-03-02T16:00:00Z',
    });
    expect(genericCalendarEventSchema.safeParse({ ...base, status: 'deleted' }).error?.issues).toEqual([
      expect.objectContaining({ path: ['status'], message: 'expected "confirmed" or "cancelled"' }),
    ]);
  });

  it('when the body breaks the schema, then each problem is reported with its path', () => {
    const result = genericCalendarEventSchema.safeParse({
      version: 2,
      id: 'x',
      sourceType: 'teams',
      start: 'yesterday',
      end: '2026-03-02T16:30:00Z',
      organizer: { email: 'not-an-email' },
      salesforce: { accountId: '0065w000023STAm' },
    });

    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join('.')).sort()).toEqual([
      'organizer.email',
      'salesforce.accountId',
      'sourceType',
      'start',
      'version',
    ]);
  });
});
