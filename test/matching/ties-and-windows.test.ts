import { describe, expect, it } from 'vitest';

import { matchMeeting, type MeetingToMatch } from '../../src/matching/match-meeting.ts';
import { DEFAULT_MATCHING, type MatchingRules } from '../../src/matching/types.ts';
import { memoryDirectory, type MemoryOrg, opportunity } from './support/memory-directory.ts';

/* Ties are never guessed, the time window, and the situations where the usual rules fail (docs/calendars.md, matching). */

const START = '2026-03-10T15:00:00.000Z';
const ACME = '0018d00000ACMEaAAA';
const ACME_JP = '0018d00000ACMEJAAA';
const PARTNER = '0018d00000PARTAAAA';
const REP = 'ana.rep@example.com';
const GAIL = { id: '0038d00000GAILaAAA', email: 'gail@acme.com', accountId: ACME };
const meeting = (emails: string[]): MeetingToMatch => ({
  attendees: [...emails.map((email) => ({ email, kind: 'external' as const })), { email: REP, kind: 'internal' as const }],
  startMs: Date.parse(START),
});
const match = (org: MemoryOrg, emails = ['gail@acme.com'], rules: Partial<MatchingRules> = {}) =>
  matchMeeting(meeting(emails), memoryDirectory(org), { ...DEFAULT_MATCHING, ...rules });
const twoDeals: MemoryOrg = {
  accounts: [{ id: ACME, website: 'acme.com' }],
  contacts: [GAIL],
  opportunities: [
    opportunity('0068d00000DEALAAAA', ACME, { lastModifiedDate: '2026-03-01T00:00:00Z' }),
    opportunity('0068d00000DEALBAAA', ACME, { lastModifiedDate: '2026-03-05T00:00:00Z' }),
  ],
};

describe('ties', () => {
  it('when two deals are equal on every signal, then under the default policy the Account is sent alone and the tie is on record', async () => {
    const record = await match(twoDeals);
    expect(record).toMatchObject({ outcome: 'ambiguous', records: { accountId: ACME }, policy: { name: 'account-only' } });
    expect(record.records.opportunityId).toBeUndefined();
    expect(record.candidates.filter((candidate) => candidate.status === 'tied').map((candidate) => candidate.id)).toEqual([
      '0068d00000DEALAAAA',
      '0068d00000DEALBAAA',
    ]);
  });

  it('when the policy is hold, then nothing is sent; when it is newest, the most recently modified is taken and still flagged', async () => {
    expect(await match(twoDeals, undefined, { ambiguous: 'hold' })).toMatchObject({ outcome: 'ambiguous', records: {}, policy: { name: 'hold' } });
    expect(await match(twoDeals, undefined, { ambiguous: 'newest' })).toMatchObject({
      outcome: 'ambiguous',
      records: { opportunityId: '0068d00000DEALBAAA' },
      policy: { name: 'newest' },
    });
  });

  it('when the same answer is asked twice in either row order, then it is the same (never the order rows came back in)', async () => {
    const reversed = { ...twoDeals, opportunities: [...twoDeals.opportunities].reverse() };
    expect((await match(twoDeals, undefined, { ambiguous: 'newest' })).records).toEqual((await match(reversed, undefined, { ambiguous: 'newest' })).records);
  });
});

describe('the time window', () => {
  const single = (extra: Parameters<typeof opportunity>[2]): MemoryOrg => ({ ...twoDeals, opportunities: [opportunity('0068d00000WINDAAA', ACME, extra)] });

  it('when the deal was created within 30 days after the meeting, then it is a candidate; 40 days after, it is not', async () => {
    expect((await match(single({ createdDate: '2026-03-30T00:00:00Z' }))).records.opportunityId).toBe('0068d00000WINDAAA');
    const late = await match(single({ createdDate: '2026-04-25T00:00:00Z' }));
    expect(late.records).toEqual({ accountId: ACME });
    expect(late.candidates[0]).toMatchObject({ status: 'ineligible', why: expect.stringContaining('created 45 days after the meeting') });
  });

  it('when the deal closed won 5 days before the meeting, then it is a candidate; closed 20 days before, it is not', async () => {
    expect((await match(single({ isClosed: true, isWon: true, closeDate: '2026-03-04' }))).records.opportunityId).toBe('0068d00000WINDAAA');
    expect((await match(single({ isClosed: true, isWon: true, closeDate: '2026-02-18' }))).records.opportunityId).toBeUndefined();
  });

  it('when one deal is open at the meeting and another closed a week before, then the open one wins on timing', async () => {
    const org = {
      ...twoDeals,
      opportunities: [
        opportunity('0068d00000OPENAAAA', ACME),
        opportunity('0068d00000CLOSAAAA', ACME, { isClosed: true, isWon: true, closeDate: '2026-03-03' }),
      ],
    };
    expect(await match(org)).toMatchObject({ rule: 'timing', records: { opportunityId: '0068d00000OPENAAAA' } });
  });
});

describe('where the usual rules fail', () => {
  it('when the domain is x.com and one Account’s website is x.com and another’s jp.x.com, then the exact host wins', async () => {
    const org: MemoryOrg = {
      accounts: [
        { id: ACME_JP, website: 'https://jp.acme.com' },
        { id: ACME, website: 'http://WWW.Acme.com:443/en' },
      ],
      contacts: [],
      opportunities: [],
    };
    expect(await match(org, ['new@acme.com'])).toMatchObject({ outcome: 'matched', rule: 'domain', records: { accountId: ACME } });
  });

  it('when a domain only appears inside another (notacme.com), then it is never a match', async () => {
    const org: MemoryOrg = { accounts: [{ id: ACME, website: 'notacme.com' }], contacts: [], opportunities: [] };
    expect((await match(org, ['new@acme.com'])).outcome).toBe('none');
  });

  it('when one email is a Contact on two Accounts, then the Account where the person is a contact role on a live deal wins', async () => {
    const org: MemoryOrg = {
      accounts: [
        { id: ACME, website: 'acme.com' },
        { id: PARTNER, website: 'reseller.example' },
      ],
      contacts: [GAIL, { ...GAIL, id: '0038d00000GAILbAAA', accountId: PARTNER }],
      opportunities: [
        opportunity('0068d00000RESLAAAA', PARTNER, { contactRoles: [{ email: 'gail@acme.com', isPrimary: true, role: null }] }),
        opportunity('0068d00000ACMEAAAA', ACME),
      ],
    };
    expect((await match(org)).records).toEqual({ opportunityId: '0068d00000RESLAAAA', accountId: PARTNER });
  });

  it('when one email is a Contact on two Accounts and no role decides, then the Account whose website is the email’s domain wins', async () => {
    const org: MemoryOrg = {
      accounts: [
        { id: ACME, website: 'acme.com' },
        { id: PARTNER, website: 'reseller.example' },
      ],
      contacts: [GAIL, { ...GAIL, id: '0038d00000GAILbAAA', accountId: PARTNER }],
      opportunities: [],
    };
    expect(await match(org)).toMatchObject({ outcome: 'matched', records: { accountId: ACME } });
  });

  it('when one email is a Contact on two Accounts with nothing else to tell them apart, then the match is ambiguous', async () => {
    const org: MemoryOrg = {
      accounts: [
        { id: ACME, website: null },
        { id: PARTNER, website: null },
      ],
      contacts: [GAIL, { ...GAIL, id: '0038d00000GAILbAAA', accountId: PARTNER }],
      opportunities: [],
    };
    expect(await match(org)).toMatchObject({ outcome: 'ambiguous', records: {} });
  });

  it('when a partner brings more people but the customer’s attendee is a contact role on the customer’s deal, then the customer’s deal wins', async () => {
    const partners = ['p1@partner.example', 'p2@partner.example', 'p3@partner.example'];
    const org: MemoryOrg = {
      accounts: [
        { id: PARTNER, website: 'partner.example', type: 'Partner' },
        { id: ACME, website: 'acme.com', type: 'Customer' },
      ],
      contacts: [...partners.map((email, index) => ({ id: `0038d0000PART${index}AAA`, email, accountId: PARTNER })), GAIL],
      opportunities: [
        opportunity('0068d00000PDEALAAA', PARTNER),
        opportunity('0068d00000CDEALAAA', ACME, { contactRoles: [{ email: 'gail@acme.com', isPrimary: true, role: null }] }),
      ],
    };
    expect((await match(org, [...partners, 'gail@acme.com'])).records.opportunityId).toBe('0068d00000CDEALAAA');
  });

  it('when the mapping file excludes partner Accounts, then a partner’s deal is never a candidate and the record says why', async () => {
    const org: MemoryOrg = {
      accounts: [
        { id: PARTNER, website: 'partner.example', type: 'Partner' },
        { id: ACME, website: 'acme.com' },
      ],
      contacts: [{ id: '0038d0000PART0AAA', email: 'p@partner.example', accountId: PARTNER }, GAIL],
      opportunities: [opportunity('0068d00000PDEALAAA', PARTNER), opportunity('0068d00000CDEALAAA', ACME)],
    };
    const record = await match(org, ['p@partner.example', 'gail@acme.com'], { excludeAccountTypes: ['partner'] });
    expect(record.records.opportunityId).toBe('0068d00000CDEALAAA');
    expect(record.accounts.find((account) => account.accountId === PARTNER)).toMatchObject({ excluded: expect.stringContaining('Partner') });
  });
  it('when nobody is known and only a subsidiary (jp.x.com) has a deal, then the parent whose host is the domain is the match, not the subsidiary’s deal', async () => {
    const org: MemoryOrg = {
      accounts: [
        { id: ACME, website: 'acme.com' },
        { id: ACME_JP, website: 'jp.acme.com' },
      ],
      contacts: [],
      opportunities: [opportunity('0068d00000JPDLAAAA', ACME_JP)],
    };
    const record = await match(org, ['new@acme.com']);
    expect(record).toMatchObject({ outcome: 'matched', rule: 'domain', records: { accountId: ACME } });
    expect(record.accounts.find((account) => account.accountId === ACME_JP)).toMatchObject({ excluded: expect.stringContaining('only under') });
  });

  it('when a partner’s own deal and its customer’s deal tie on every other signal, then the customer’s wins; with no partner types named, it is a tie', async () => {
    const org: MemoryOrg = {
      accounts: [
        { id: PARTNER, website: 'partner.example', type: 'Partner' },
        { id: ACME, website: 'acme.com', type: 'Customer' },
      ],
      contacts: [{ id: '0038d0000PART0AAA', email: 'p@partner.example', accountId: PARTNER }, GAIL],
      opportunities: [
        opportunity('0068d00000PDEALAAA', PARTNER, { contactRoles: [{ email: 'p@partner.example', isPrimary: true, role: null }] }),
        opportunity('0068d00000CDEALAAA', ACME, { contactRoles: [{ email: 'gail@acme.com', isPrimary: true, role: null }] }),
      ],
    };
    expect(await match(org, ['p@partner.example', 'gail@acme.com'])).toMatchObject({
      rule: 'account_evidence',
      records: { opportunityId: '0068d00000CDEALAAA' },
    });
    expect((await match(org, ['p@partner.example', 'gail@acme.com'], { partnerAccountTypes: [] })).outcome).toBe('ambiguous');
  });
});
