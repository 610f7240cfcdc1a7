import { afterEach, describe, expect, it } from 'vitest';

import type { CalendarEvent } from '../../src/calendar/calendar-event.ts';
import { type CalendarMapperDeps, createCalendarEventMapper, mapCalendarEvent } from '../../src/calendar/calendar-mapper.ts';
import { builtInRules } from '../../src/mapping/default-rules.ts';
import { UnmappableEventError } from '../../src/mapping/event-mapper.ts';
import { DEFAULT_MATCHING } from '../../src/matching/types.ts';
import type { InboundEvent } from '../../src/store/types.ts';
import { captureLogs } from '../support/log-capture.ts';
import { directoryWith, sfId } from './support/directory-setup.ts';

const rules = builtInRules({ triggerSummary: false, triggerAiSignals: false }).calendar;
const ACCOUNT = '0018d0000101XyZAAU';

const event = (overrides: Partial<CalendarEvent> = {}): CalendarEvent => ({
  version: 1,
  origin: 'google',
  sourceType: 'GOOGLE_CALENDAR',
  eventId: '5q3vb0ak2lqk0s0m1o2p3q4r5s',
  calendarId: 'ana.rep@example.com',
  title: 'Pricing review',
  start: '2026-03-02T16:00:00Z',
  organizerEmail: 'ana.rep@example.com',
  attendees: [{ email: 'ana.rep@example.com' }, { email: 'hank.buyer@globex.test' }],
  extendedProperties: { private: { sfAccountId: ACCOUNT } },
  ...overrides,
});

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

describe('mapCalendarEvent', () => {
  it('when a Google event matches, then the remap names the event as a GOOGLE_CALENDAR source with the organizer as host', async () => {
    const deps: CalendarMapperDeps = { rules: { ...rules, triggerSummary: true }, internalDomains: ['example.com'], matching: DEFAULT_MATCHING };

    const outcome = await mapCalendarEvent(event(), deps);

    expect(outcome).toEqual({
      kind: 'remap',
      request: {
        source: { type: 'GOOGLE_CALENDAR', id: '5q3vb0ak2lqk0s0m1o2p3q4r5s' },
        salesforceRecords: { accountId: ACCOUNT },
        meetingDetails: { title: 'Pricing review', startTime: '2026-03-02T16:00:00Z', hostEmail: 'ana.rep@example.com' },
      },
      flags: { triggerSummary: true, triggerAiSignals: false },
      coalesceKey: 'source:GOOGLE_CALENDAR:5q3vb0ak2lqk0s0m1o2p3q4r5s',
      rule: 'explicit_ids',
      match: expect.objectContaining({ outcome: 'matched', rule: 'explicit_ids', records: { accountId: ACCOUNT } }),
      // What ties it to its other sources: the start, the host and the title (this event has no UID or join link).
      clues: { start: '2026-03-02T16:00:00Z', hostEmail: 'ana.rep@example.com', title: 'Pricing review' },
    });
  });

  it('when a generic event declares its source type, then the remap uses it', async () => {
    const outcome = await mapCalendarEvent(
      event({ origin: 'calendar', sourceType: 'MS_TEAMS', eventId: 'AAMk', extendedProperties: undefined, explicitIds: { opportunityId: sfId('006', 3) } }),
      {
        rules,
        internalDomains: ['example.com'],
        matching: DEFAULT_MATCHING,
      },
    );

    expect(outcome).toMatchObject({
      kind: 'remap',
      request: { source: { type: 'MS_TEAMS', id: 'AAMk' }, salesforceRecords: { opportunityId: sfId('006', 3) } },
      coalesceKey: 'source:MS_TEAMS:AAMk',
    });
  });

  it('when the organizer is a shared calendar, then the watched calendar’s owner is the host', async () => {
    const outcome = await mapCalendarEvent(event({ organizerEmail: 'c_abc123@group.calendar.google.com' }), {
      rules,
      internalDomains: ['example.com'],
      matching: DEFAULT_MATCHING,
    });

    expect(outcome).toMatchObject({ request: { meetingDetails: { hostEmail: 'ana.rep@example.com' } } });
  });

  it('when nothing matches, then it is skipped as "no CRM match" with what was tried', async () => {
    const { fake, directory } = await directoryWith({});
    closers.push(fake.close);

    const outcome = await mapCalendarEvent(event({ extendedProperties: undefined }), {
      rules,
      internalDomains: ['example.com'],
      directory,
      matching: DEFAULT_MATCHING,
    });

    expect(outcome.kind).toBe('skipped');
    expect(outcome.kind === 'skipped' && outcome.reason).toMatch(
      /^no CRM match; tried explicit ids: none; Salesforce links .*: none; contacts by email \(hank\.buyer@globex\.test\): none with an Account; leads by email \(hank\.buyer@globex\.test\): none; accounts by domain \(globex\.test\): none eligible$/,
    );
  });

  it('when the mapping rules switch the calendar off, then every event is skipped', async () => {
    expect(await mapCalendarEvent(event(), { rules: { ...rules, enabled: false }, internalDomains: [], matching: DEFAULT_MATCHING })).toEqual({
      kind: 'skipped',
      reason: 'calendar mapping is disabled in the mapping rules',
    });
  });
});

describe('createCalendarEventMapper', () => {
  const inbound = (parsedPayload: unknown): InboundEvent => ({
    id: 7,
    messageId: 1,
    source: 'google',
    senderId: 'bridge-1',
    dedupeKey: 'google:x:1',
    parsedPayload,
    receivedAt: 0,
    state: 'received',
    stateReason: null,
  });
  const context = { logger: captureLogs().logger, signal: new AbortController().signal };

  it('when the stored payload is a calendar event, then it is mapped', async () => {
    const mapper = createCalendarEventMapper({ rules, internalDomains: ['example.com'], matching: DEFAULT_MATCHING });

    expect(await mapper(inbound(event()), context)).toMatchObject({ kind: 'remap', request: { salesforceRecords: { accountId: ACCOUNT } } });
  });

  it('when the stored payload is not a calendar event, then mapping fails for good (UnmappableEventError)', async () => {
    const mapper = createCalendarEventMapper({ rules, internalDomains: ['example.com'], matching: DEFAULT_MATCHING });

    await expect(mapper(inbound({ something: 'else' }), context)).rejects.toBeInstanceOf(UnmappableEventError);
  });
});
