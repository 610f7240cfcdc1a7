import { describe, expect, it } from 'vitest';

import { matchMeeting, type MeetingToMatch } from '../../src/matching/match-meeting.ts';
import { DEFAULT_MATCHING, type MatchAttendee } from '../../src/matching/types.ts';
import { memoryDirectory, type MemoryOrg, opportunity } from './support/memory-directory.ts';

/* Each signal of matching on its own, in order of trust: what decides, and what the record says. */

const START = '2026-03-10T15:00:00.000Z';
const ACME = '0018d00000ACMEaAAA';
const REP = 'ana.rep@example.com';
const ext = (email: string): MatchAttendee => ({ email, kind: 'external' });
const meeting = (emails: string[], extra: Partial<MeetingToMatch> = {}): MeetingToMatch => ({
  attendees: [...emails.map(ext), { email: REP, kind: 'internal' }],
  startMs: Date.parse(START),
  ...extra,
});
const org = (extra: Partial<MemoryOrg> = {}): MemoryOrg => ({
  accounts: [{ id: ACME, website: 'https://www.acme.com' }],
  contacts: [{ id: '0038d00000GAILaAAA', email: 'gail@acme.com', accountId: ACME }],
  opportunities: [],
  ...extra,
});

describe('matching signals', () => {
  it('when the meeting names ids itself, then they win and nothing is looked up', async () => {
    const directory = memoryDirectory(org());
    const record = await matchMeeting(meeting(['gail@acme.com'], { explicit: { opportunityId: '0068d00000EXPLAAA' } }), directory, DEFAULT_MATCHING);
    expect(record).toMatchObject({ outcome: 'matched', rule: 'explicit_ids', records: { opportunityId: '0068d00000EXPLAAA' } });
    expect(directory.calls).toEqual([]);
  });

  it('when a pin exists, then it wins over ids in the meeting and says who pinned and why', async () => {
    const pin = { records: { opportunityId: '0068d00000PINNAAA' }, by: 'ops@example.com', at: '2026-03-11T09:00:00.000Z', reason: 'renewal, not expansion' };
    const record = await matchMeeting(meeting([], { pin, explicit: { accountId: ACME } }), memoryDirectory(org()), DEFAULT_MATCHING);
    expect(record).toMatchObject({ outcome: 'pinned', rule: 'pinned', records: pin.records, pin: { by: 'ops@example.com', reason: 'renewal, not expansion' } });
  });

  it('when a Salesforce link is in the description, then it wins over attendees', async () => {
    const record = await matchMeeting(meeting(['gail@acme.com'], { linked: { opportunityId: '0068d00000LINKAAA' } }), memoryDirectory(org()), DEFAULT_MATCHING);
    expect(record).toMatchObject({ outcome: 'matched', rule: 'salesforce_link' });
  });

  it('when the Account has one opportunity in the window, then it is chosen as the only candidate', async () => {
    const record = await matchMeeting(
      meeting(['gail@acme.com']),
      memoryDirectory(org({ opportunities: [opportunity('0068d00000ONE1AAA', ACME)] })),
      DEFAULT_MATCHING,
    );
    expect(record).toMatchObject({ outcome: 'matched', rule: 'only_candidate', records: { opportunityId: '0068d00000ONE1AAA', accountId: ACME } });
  });

  it('when an attendee is a contact role on one of two deals, then that deal wins and the other lost for it', async () => {
    const roles = [{ email: 'gail@acme.com', isPrimary: true, role: 'Decision Maker' }];
    const directory = memoryDirectory(
      org({
        opportunities: [
          opportunity('0068d00000NEWRAAA', ACME, { lastModifiedDate: '2026-03-09T00:00:00Z' }),
          opportunity('0068d00000ROLEAAA', ACME, { contactRoles: roles }),
        ],
      }),
    );
    const record = await matchMeeting(meeting(['gail@acme.com']), directory, DEFAULT_MATCHING);
    expect(record).toMatchObject({ outcome: 'matched', rule: 'contact_role', records: { opportunityId: '0068d00000ROLEAAA' } });
    expect(record.candidates.find((candidate) => candidate.id === '0068d00000NEWRAAA')).toMatchObject({
      status: 'lost',
      why: expect.stringContaining('no attendee is a contact role'),
    });
  });

  it('when more attendees are contact roles on one deal, then more is stronger', async () => {
    const role = (email: string) => ({ email, isPrimary: false, role: null });
    const contacts = [
      { id: '0038d00000GAILaAAA', email: 'gail@acme.com', accountId: ACME },
      { id: '0038d00000HANKaAAA', email: 'hank@acme.com', accountId: ACME },
    ];
    const opportunities = [
      opportunity('0068d00000ONERAAA', ACME, { contactRoles: [role('gail@acme.com')] }),
      opportunity('0068d00000TWORAAA', ACME, { contactRoles: [role('gail@acme.com'), role('hank@acme.com')] }),
    ];
    const record = await matchMeeting(meeting(['gail@acme.com', 'hank@acme.com']), memoryDirectory(org({ contacts, opportunities })), DEFAULT_MATCHING);
    expect(record.records.opportunityId).toBe('0068d00000TWORAAA');
  });

  it('when no contact role decides and the owner of one deal attends, then the owner decides', async () => {
    const opportunities = [
      opportunity('0068d00000OWNRAAA', ACME, { ownerEmail: REP }),
      opportunity('0068d00000OTHRAAA', ACME, { ownerEmail: 'bob@example.com' }),
    ];
    const record = await matchMeeting(meeting(['gail@acme.com']), memoryDirectory(org({ opportunities })), DEFAULT_MATCHING);
    expect(record).toMatchObject({ rule: 'owner_attends', records: { opportunityId: '0068d00000OWNRAAA' } });
  });

  it('when a team member attends and teams are on, then it counts as the owner; with teams off it does not', async () => {
    const opportunities = [opportunity('0068d00000TEAMAAA', ACME, { teamEmails: [REP] }), opportunity('0068d00000OTHRAAA', ACME)];
    const teams = await matchMeeting(meeting(['gail@acme.com']), memoryDirectory(org({ opportunities })), { ...DEFAULT_MATCHING, opportunityTeams: true });
    const none = await matchMeeting(meeting(['gail@acme.com']), memoryDirectory(org({ opportunities })), DEFAULT_MATCHING);
    expect(teams.records.opportunityId).toBe('0068d00000TEAMAAA');
    expect(none.outcome).toBe('ambiguous');
  });

  it('when only a Lead attends, then the Lead is matched', async () => {
    const directory = memoryDirectory(org({ contacts: [], leads: [{ id: '00Q8d00000LEADAAA', email: 'lee@startup.io' }] }));
    const record = await matchMeeting(meeting(['lee@startup.io']), directory, DEFAULT_MATCHING);
    expect(record).toMatchObject({ outcome: 'matched', rule: 'lead', records: { leadId: '00Q8d00000LEADAAA' } });
  });

  it('when nobody is known but the domain is an Account website, then the domain matches the Account', async () => {
    const record = await matchMeeting(meeting(['new.person@acme.com']), memoryDirectory(org({ contacts: [] })), DEFAULT_MATCHING);
    expect(record).toMatchObject({ outcome: 'matched', rule: 'domain', records: { accountId: ACME } });
  });

  it('when an attendee writes from a free-mail domain, then the domain never matches but an exact Contact email does (unless turned off)', async () => {
    const accounts = [{ id: ACME, website: 'gmail.com' }];
    const contacts = [{ id: '0038d00000PERSAAA', email: 'gail.home@gmail.com', accountId: ACME }];
    const attendees: MatchAttendee[] = [
      { email: 'gail.home@gmail.com', kind: 'personal' },
      { email: 'stranger@gmail.com', kind: 'personal' },
    ];
    const exact = await matchMeeting({ attendees, startMs: Date.parse(START) }, memoryDirectory(org({ accounts, contacts })), DEFAULT_MATCHING);
    const off = await matchMeeting({ attendees, startMs: Date.parse(START) }, memoryDirectory(org({ accounts, contacts })), {
      ...DEFAULT_MATCHING,
      personalEmailContacts: false,
    });
    const stranger = await matchMeeting(
      { attendees: [attendees[1]!], startMs: Date.parse(START) },
      memoryDirectory(org({ accounts, contacts: [] })),
      DEFAULT_MATCHING,
    );
    expect(exact.records).toEqual({ accountId: ACME });
    expect(off.outcome).toBe('none');
    expect(stranger.outcome).toBe('none');
  });

  it('when only the company’s own people attend, then nothing is looked up and nothing matches', async () => {
    const directory = memoryDirectory(org());
    const record = await matchMeeting({ attendees: [{ email: REP, kind: 'internal' }], startMs: Date.parse(START) }, directory, DEFAULT_MATCHING);
    expect(record).toMatchObject({ outcome: 'none', records: {} });
    expect(directory.calls).toEqual([]);
  });

  it('when the domain is unknown to the CRM, then nothing matches and the record says what was tried', async () => {
    const record = await matchMeeting(meeting(['x@unknown.example']), memoryDirectory(org({ contacts: [] })), DEFAULT_MATCHING);
    expect(record.outcome).toBe('none');
    expect(record.tried.join('; ')).toContain('leads by email');
  });
});
