import { describe, expect, it } from 'vitest';

import { holdsIds } from '../../src/momentum/held-ids.ts';
import type { ListedMeeting } from '../../src/momentum/meeting-list.ts';
import { findNamed, namedInListing, namedInRemap } from '../../src/momentum/named-meeting.ts';

const listed = (overrides: Partial<ListedMeeting> = {}): ListedMeeting => ({
  id: '7',
  title: 'Pricing review',
  startTime: '2026-03-02T16:00:00.000Z',
  host: { email: 'ana.rep@example.com' },
  attendees: [],
  ...overrides,
});

describe('holdsIds', () => {
  it('when Momentum holds the opportunity sent, in its 15- or 18-character form, then it holds what was sent; the account it filled in is not compared', () => {
    const meeting = listed({ salesforceOpportunityId: '0065w000023STAm', salesforceAccountId: '0015w000023STAmAAO' });

    expect(holdsIds(meeting, { opportunityId: '0065w000023STAmAAO' })).toBe(true);
  });

  it('when the opportunity differs, or an account sent is not the one held, then it does not', () => {
    const meeting = listed({ salesforceOpportunityId: '0065w000023STBnAAO', salesforceAccountId: '0015w000023STAmAAO' });

    expect(holdsIds(meeting, { opportunityId: '0065w000023STAmAAO' })).toBe(false);
    expect(holdsIds(meeting, { opportunityId: '0065w000023STBnAAO', accountId: '0015w000023STBnAAO' })).toBe(false);
  });

  it('when a lead was sent, then it is looked for on the attendees', () => {
    const lead = '00Q5w00001XYZabEAF';

    expect(holdsIds(listed({ attendees: [{ email: 'buyer@globex.example', salesforceLeadId: lead }] }), { leadId: lead })).toBe(true);
    expect(holdsIds(listed(), { leadId: lead })).toBe(false);
  });
});

describe('findNamed', () => {
  const remap = (details: Record<string, unknown>) => namedInRemap({ salesforceRecords: { accountId: '0015w000023STAmAAO' }, meetingDetails: details });

  it('when a remap names Momentum’s id, then the meeting with that id is found whatever its start', () => {
    const found = findNamed(remap({ momentumMeetingId: 7 }), [listed({ id: '6' }), listed({ startTime: '2026-03-03T09:00:00Z' })], namedInListing);

    expect(found?.id).toBe('7');
  });

  it('when a remap names start, title and host, then the one meeting agreeing on all three is found; the same instant written another way is the same start', () => {
    const meetings = [
      listed({ id: '1', title: 'Other' }),
      listed({ id: '2', startTime: '2026-03-02T17:00:00+01:00' }),
      listed({ id: '3', host: { email: 'bob@example.com' } }),
    ];

    const found = findNamed(remap({ title: 'Pricing review', startTime: '2026-03-02T16:00:00Z', hostEmail: 'Ana.Rep@example.com' }), meetings, namedInListing);

    expect(found?.id).toBe('2');
  });

  it('when two listed meetings fit what the remap names equally, then none is found: the bridge cannot tell which it was', () => {
    const found = findNamed(remap({ startTime: '2026-03-02T16:00:00Z' }), [listed({ id: '1' }), listed({ id: '2', title: 'Other' })], namedInListing);

    expect(found).toBeUndefined();
  });
});
