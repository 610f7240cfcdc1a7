import { describe, expect, it } from 'vitest';

import type { MappingOutcome } from '../../src/mapping/mapping-outcome.ts';
import { sourceStateOf, START_TOLERANCE_MS } from '../../src/mapping/meeting-identity.ts';

const event = { id: 7, source: 'google' };
const records = { opportunityId: '0068d0000101XyZAAU' };

describe('sourceStateOf', () => {
  it('when a remap names its source and the calendar gave clues, then the source and UID are exact links, the join link, Zoom number and host timed ones', () => {
    const outcome: MappingOutcome = {
      kind: 'remap',
      request: { source: { type: 'GOOGLE_CALENDAR', id: 'evt-1' }, salesforceRecords: records, meetingDetails: { startTime: '2026-03-02T16:00:00Z' } },
      flags: { triggerSummary: false, triggerAiSignals: false },
      coalesceKey: 'source:GOOGLE_CALENDAR:evt-1',
      sourceVersion: 1_700_000_000_000,
      clues: { iCalUId: 'evt-1@google.com', joinUrls: ['https://us02web.zoom.us/j/85012345678?pwd=x'], hostEmail: 'Ana.Rep@Example.com', title: 'QBR' },
    };

    expect(sourceStateOf(event, 'google:google:evt-1', outcome)).toEqual({
      recordKey: 'google:google:evt-1',
      source: 'google',
      exactLinks: ['ical:evt-1@google.com', 'source:GOOGLE_CALENDAR:evt-1'],
      timedLinks: ['zoom:85012345678', 'host:ana.rep@example.com'],
      startAt: Date.parse('2026-03-02T16:00:00Z'),
      toleranceMs: START_TOLERANCE_MS,
      host: 'ana.rep@example.com',
      title: 'QBR',
      cancelled: false,
      version: { sourceVersion: 1_700_000_000_000, eventId: 7 },
    });
  });

  it('when an import is mapped, then its id is the meeting’s import id and its call link and host are timed links', () => {
    const outcome: MappingOutcome = {
      kind: 'import',
      request: {
        meeting: { id: 'uuid==', startTime: '2026-03-02T16:01:00Z', host: { email: 'ana@example.com' }, callUrl: 'https://meet.google.com/abc-defg-hij' },
      },
    };

    expect(sourceStateOf({ id: 8, source: 'recording' }, 'recording:signed:uuid==', outcome)).toMatchObject({
      exactLinks: [],
      timedLinks: ['meet:abc-defg-hij', 'host:ana@example.com'],
      importedId: 'uuid==',
      cancelled: false,
    });
  });

  it('when a skip carries no clues (a record that is no meeting), then it has no identity; a cancellation always has one', () => {
    expect(sourceStateOf(event, 'salesforce:Opportunity:006', { kind: 'skipped', reason: 'no meeting identity' })).toBeUndefined();
    expect(sourceStateOf(event, 'google:google:evt-1', { kind: 'skipped', reason: 'cancelled', cancelled: true })).toMatchObject({
      cancelled: true,
      exactLinks: [],
      timedLinks: [],
    });
  });
});
