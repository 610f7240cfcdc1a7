import { readFileSync } from 'node:fs';

import { afterEach, describe, expect, it } from 'vitest';

import type { CalendarEvent } from '../../src/calendar/calendar-event.ts';
import { matchCalendarEvent, type MatchDeps } from '../../src/calendar/match.ts';
import { normaliseGoogleEvent } from '../../src/google/normalise-google-event.ts';
import { DEFAULT_EXPLICIT_ID_KEYS } from '../../src/mapping/default-rules.ts';
import { DEFAULT_MATCHING } from '../../src/matching/types.ts';
import { SalesforceLookupError } from '../../src/salesforce/directory.ts';
import type { Tables } from '../fakes/fake-salesforce-records.ts';
import { directoryWith, queryKinds, sfId } from './support/directory-setup.ts';

const GLOBEX = sfId('001', 1);
const INITECH = sfId('001', 2);
const fixture = JSON.parse(readFileSync(new URL('../fixtures/google/events-list-incremental.json', import.meta.url), 'utf8')) as { items: unknown[] };

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function setup(tables: Tables) {
  const { fake, directory } = await directoryWith(tables);
  closers.push(fake.close);
  const deps: MatchDeps = { explicitIdKeys: DEFAULT_EXPLICIT_ID_KEYS, internalDomains: ['example.com'], directory, matching: DEFAULT_MATCHING };
  return { fake, deps };
}

const meeting = (attendees: string[], overrides: Partial<CalendarEvent> = {}): CalendarEvent => ({
  version: 1,
  origin: 'google',
  sourceType: 'GOOGLE_CALENDAR',
  eventId: 'evt-1',
  calendarId: 'ana.rep@example.com',
  organizerEmail: 'ana.rep@example.com',
  start: '2026-03-02T16:00:00Z',
  attendees: [{ email: 'ana.rep@example.com', organizer: true }, ...attendees.map((email) => ({ email }))],
  ...overrides,
});

const opp = (n: number, accountId: string, fields: { modified: string; owner?: string; roles?: string[]; closed?: string; created?: string }) => ({
  Id: sfId('006', n),
  AccountId: accountId,
  IsClosed: fields.closed !== undefined,
  CloseDate: fields.closed ?? '2026-06-30',
  CreatedDate: fields.created ?? '2026-01-01T00:00:00.000+0000',
  LastModifiedDate: fields.modified,
  OwnerEmail: fields.owner ?? 'someone.else@example.com',
  ContactRoleEmails: fields.roles ?? [],
});

describe('matchCalendarEvent', () => {
  it('when the fixture event has an explicit account id and an opportunity link, then the explicit id wins and Salesforce is not asked', async () => {
    const { fake, deps } = await setup({});
    const normalised = normaliseGoogleEvent(fixture.items[0], 'ana.rep@example.com', ['example.com']);
    if (normalised.kind !== 'event' || normalised.event.status === 'cancelled') throw new Error('fixture event should normalise to a meeting');

    const result = await matchCalendarEvent(normalised.event, deps);

    expect(result).toMatchObject({ outcome: 'matched', rule: 'explicit_ids', records: { accountId: '0018d0000101XyZAAU' } });
    expect(fake.queries).toEqual([]);
  });

  it('when only the description links an opportunity, then that link is used and Salesforce is not asked', async () => {
    const { fake, deps } = await setup({});
    const event = meeting(['hank.buyer@globex.test'], {
      description: 'Deal: https://acme.lightning.force.com/lightning/r/Opportunity/0068d0000101XyZAAU/view',
    });

    expect(await matchCalendarEvent(event, deps)).toMatchObject({
      outcome: 'matched',
      rule: 'salesforce_link',
      records: { opportunityId: '0068d0000101XyZAAU' },
    });
    expect(fake.queries).toEqual([]);
  });

  it('when an attendee is a Contact and the Account has several open opportunities, then the one whose Contact Roles include an attendee wins', async () => {
    const { fake, deps } = await setup({
      contacts: [{ Id: sfId('003', 1), Email: 'Hank.Buyer@globex.test', AccountId: GLOBEX }],
      opportunities: [
        opp(1, GLOBEX, { modified: '2026-02-27T00:00:00.000+0000', owner: 'ana.rep@example.com' }),
        opp(2, GLOBEX, { modified: '2026-02-01T00:00:00.000+0000', roles: ['hank.buyer@globex.test'] }),
        opp(3, GLOBEX, { modified: '2026-02-28T00:00:00.000+0000' }),
      ],
    });

    const result = await matchCalendarEvent(meeting(['hank.buyer@globex.test']), deps);

    expect(result).toMatchObject({ outcome: 'matched', rule: 'contact_role', records: { accountId: GLOBEX, opportunityId: sfId('006', 2) } });
    // One round trip per kind of lookup: no Lead or domain query once a Contact matched.
    expect(queryKinds(fake.queries)).toEqual(['Contact', 'Opportunity']);
  });

  it('when no Contact Role includes an attendee, then the opportunity owned by an attending internal user wins over a newer one', async () => {
    const { deps } = await setup({
      contacts: [{ Id: sfId('003', 1), Email: 'hank.buyer@globex.test', AccountId: GLOBEX }],
      opportunities: [
        opp(1, GLOBEX, { modified: '2026-02-01T00:00:00.000+0000', owner: 'bo.se@example.com' }),
        opp(2, GLOBEX, { modified: '2026-02-28T00:00:00.000+0000', owner: 'nobody@example.com' }),
      ],
    });

    const result = await matchCalendarEvent(meeting(['hank.buyer@globex.test', 'bo.se@example.com']), deps);

    expect(result).toMatchObject({ records: { accountId: GLOBEX, opportunityId: sfId('006', 1) } });
  });

  it('when no signal tells two open deals apart, then the tie is not guessed: the Account goes alone and the deals outside the window are ineligible', async () => {
    const { deps } = await setup({
      contacts: [{ Id: sfId('003', 1), Email: 'hank.buyer@globex.test', AccountId: GLOBEX }],
      opportunities: [
        opp(1, GLOBEX, { modified: '2026-02-10T00:00:00.000+0000' }),
        opp(2, GLOBEX, { modified: '2026-02-20T00:00:00.000+0000' }),
        // Closed 6 weeks before the meeting, and created 2 months after it: not open at the meeting time.
        opp(3, GLOBEX, { modified: '2026-03-01T00:00:00.000+0000', closed: '2026-01-19' }),
        opp(4, GLOBEX, { modified: '2026-03-01T00:00:00.000+0000', created: '2026-05-02T00:00:00.000+0000' }),
      ],
    });

    const result = await matchCalendarEvent(meeting(['hank.buyer@globex.test']), deps);

    expect(result).toMatchObject({ outcome: 'ambiguous', records: { accountId: GLOBEX }, policy: { name: 'account-only' } });
    expect(result.candidates.map((candidate) => [candidate.id, candidate.status])).toEqual([
      [sfId('006', 1), 'tied'],
      [sfId('006', 2), 'tied'],
      [sfId('006', 3), 'ineligible'],
      [sfId('006', 4), 'ineligible'],
    ]);
  });

  it('when the Account has no opportunity open at the meeting time, then the Account alone is matched', async () => {
    const { deps } = await setup({
      contacts: [{ Id: sfId('003', 1), Email: 'hank.buyer@globex.test', AccountId: GLOBEX }],
      opportunities: [opp(1, GLOBEX, { modified: '2026-01-01T00:00:00.000+0000', closed: '2025-12-01' })],
    });

    expect(await matchCalendarEvent(meeting(['hank.buyer@globex.test']), deps)).toMatchObject({
      outcome: 'matched',
      rule: 'contact_account',
      records: { accountId: GLOBEX },
    });
  });

  it('when an attendee is an unconverted Lead and no Contact matches, then the Lead is matched', async () => {
    const { fake, deps } = await setup({
      leads: [
        { Id: sfId('00Q', 7), Email: 'pat@startup.test' },
        { Id: sfId('00Q', 8), Email: 'old@startup.test', IsConverted: true },
      ],
    });

    expect(await matchCalendarEvent(meeting(['old@startup.test', 'pat@startup.test']), deps)).toMatchObject({
      outcome: 'matched',
      rule: 'lead',
      records: { leadId: sfId('00Q', 7) },
    });
    expect(queryKinds(fake.queries)).toEqual(['Contact', 'Lead']);
  });

  it('when no email matches but another Contact shares the attendee domain, then that Account is matched', async () => {
    const { fake, deps } = await setup({ contacts: [{ Id: sfId('003', 2), Email: 'cfo@initech.test', AccountId: INITECH }] });

    expect(await matchCalendarEvent(meeting(['new.person@initech.test']), deps)).toMatchObject({
      outcome: 'matched',
      rule: 'domain',
      records: { accountId: INITECH },
    });
    expect(queryKinds(fake.queries).sort()).toEqual(['Contact', 'ContactDomain', 'Lead', 'Opportunity', 'Website']);
  });

  it('when only an Account website matches the domain, then that Account is matched and look-alike domains are not', async () => {
    const { deps } = await setup({
      accounts: [
        { Id: sfId('001', 9), Website: 'notinitech.test' },
        { Id: INITECH, Website: 'https://www.initech.test/about' },
      ],
    });

    expect(await matchCalendarEvent(meeting(['new.person@initech.test']), deps)).toMatchObject({ records: { accountId: INITECH } });
  });

  it('when the only attendees are internal or rooms, then nothing is looked up even if they are Contacts', async () => {
    const { fake, deps } = await setup({ contacts: [{ Id: sfId('003', 3), Email: 'bo.se@example.com', AccountId: GLOBEX }] });
    const event = meeting(['bo.se@example.com', 'room-4@resource.calendar.google.com']);

    const result = await matchCalendarEvent(event, deps);

    expect(result.outcome).toBe('none');
    expect(result.tried.at(-1)).toMatch(/no external attendee/);
    expect(fake.queries).toEqual([]);
  });

  it('when a personal address is exactly a Contact’s email, then it matches that Contact’s Account; the free-mail domain itself never matches', async () => {
    const { deps } = await setup({
      contacts: [{ Id: sfId('003', 4), Email: 'hank.private@gmail.com', AccountId: GLOBEX }],
      accounts: [{ Id: sfId('001', 5), Website: 'gmail.com' }],
    });

    expect(await matchCalendarEvent(meeting(['hank.private@gmail.com']), deps)).toMatchObject({ outcome: 'matched', records: { accountId: GLOBEX } });
    expect((await matchCalendarEvent(meeting(['stranger@gmail.com']), deps)).outcome).toBe('none');
  });

  it('when nothing matches at all, then the result lists every rule tried', async () => {
    const { deps } = await setup({});

    const result = await matchCalendarEvent(meeting(['x@unknown.test']), deps);

    expect(result).toMatchObject({ outcome: 'none', records: {} });
    expect(result.tried).toEqual([
      'explicit ids: none',
      'Salesforce links or ids in the description and location: none',
      'contacts by email (x@unknown.test): none with an Account',
      'leads by email (x@unknown.test): none',
      'accounts by domain (unknown.test): none eligible',
    ]);
  });

  it('when a second event has the same attendees, then every answer comes from the cache', async () => {
    const { fake, deps } = await setup({
      contacts: [{ Id: sfId('003', 1), Email: 'hank.buyer@globex.test', AccountId: GLOBEX }],
      opportunities: [opp(1, GLOBEX, { modified: '2026-02-10T00:00:00.000+0000' })],
    });
    const first = await matchCalendarEvent(meeting(['hank.buyer@globex.test']), deps);
    const queriesAfterFirst = fake.queries.length;

    const second = await matchCalendarEvent(meeting(['hank.buyer@globex.test'], { eventId: 'evt-2', start: '2026-03-03T10:00:00Z' }), deps);

    expect(second).toEqual(first);
    expect(queriesAfterFirst).toBe(2);
    expect(fake.queries).toHaveLength(2);
  });

  it('when Salesforce cannot answer, then a retryable SalesforceLookupError is thrown', async () => {
    const { fake, deps } = await setup({});
    fake.failNextQueries(1);

    await expect(matchCalendarEvent(meeting(['hank.buyer@globex.test']), deps)).rejects.toBeInstanceOf(SalesforceLookupError);
  });

  it('when no Salesforce credentials are configured, then attendee matching is reported as not attempted', async () => {
    const result = await matchCalendarEvent(meeting(['hank.buyer@globex.test']), {
      explicitIdKeys: DEFAULT_EXPLICIT_ID_KEYS,
      internalDomains: ['example.com'],
      matching: DEFAULT_MATCHING,
    });

    expect(result).toMatchObject({ outcome: 'none', tried: expect.arrayContaining(['attendees: not looked up (no Salesforce credentials configured)']) });
  });
});
