import { describe, expect, it } from 'vitest';

import type { CalendarEvent } from '../../src/calendar/calendar-event.ts';
import { explicitIds } from '../../src/calendar/explicit-ids.ts';
import { findRecordIds } from '../../src/calendar/record-links.ts';
import { DEFAULT_EXPLICIT_ID_KEYS } from '../../src/mapping/default-rules.ts';

// 15-character ids and their 18-character forms (checksum per protocols.md §2).
const OPP_15 = '0065w000023STAm';
const OPP_18 = '0065w000023STAmAAO';
const ACCOUNT_18 = '0018d0000101XyZAAU';
const LEAD_15 = '00Q5w00001abcDE';
// Blocks 00Q5w → Q at 2 → E; 00001 → A; abcDE → D at 3, E at 4 → 24 → Y.
const LEAD_18 = '00Q5w00001abcDEEAY';

describe('findRecordIds (Salesforce links and ids in text)', () => {
  it('when the description holds a Lightning record URL, then its id is found and kept at 18 characters', () => {
    const text = 'Opportunity: https://example-dev-ed.lightning.force.com/lightning/r/Opportunity/0068d0000101XyZAAU/view';

    expect(findRecordIds(text)).toEqual({ opportunity: '0068d0000101XyZAAU' });
  });

  it('when the location holds a Classic URL with a 15-character id, then it is normalised to 18', () => {
    expect(findRecordIds(undefined, `https://acme.my.salesforce.com/${OPP_15}?srPos=0`)).toEqual({ opportunity: OPP_18 });
  });

  it('when bare ids of several kinds appear, then each kind is found once, first occurrence wins', () => {
    const text = `Account ${ACCOUNT_18}, lead ${LEAD_15}, also ${OPP_15} and later 0065w000023STBnAAO`;

    expect(findRecordIds(text)).toEqual({ account: ACCOUNT_18, lead: LEAD_18, opportunity: OPP_18 });
  });

  it('when a link sits in an HTML href, then it is found', () => {
    expect(findRecordIds(`<a href="https://x.lightning.force.com/lightning/r/Account/${ACCOUNT_18}/view">Globex</a>`)).toEqual({ account: ACCOUNT_18 });
  });

  it('when tokens only look like ids (wrong prefix, wrong checksum, inside a word, Contact id), then nothing is found', () => {
    const text = [
      '0035w000023STAmAAO', // a Contact (003): never sent to Momentum
      '0065w000023STAmZZZ', // an 18-character id whose checksum does not match
      `x${OPP_15}`, // part of a longer word
      'order 00612345678901234567 shipped', // 20 characters
    ].join(' ');

    expect(findRecordIds(text)).toEqual({});
  });
});

const event = (overrides: Partial<CalendarEvent>): CalendarEvent => ({
  version: 1,
  origin: 'google',
  sourceType: 'GOOGLE_CALENDAR',
  eventId: 'e1',
  start: '2026-03-02T16:00:00Z',
  attendees: [],
  ...overrides,
});

describe('explicitIds (extendedProperties and the generic body)', () => {
  it('when private and shared properties name ids, then private wins per kind and shared fills the rest', () => {
    const found = explicitIds(
      event({ extendedProperties: { private: { sfAccountId: ACCOUNT_18 }, shared: { sfAccountId: '001000000000001AAA', sfOpportunityId: OPP_15 } } }),
      DEFAULT_EXPLICIT_ID_KEYS,
    );

    expect(found).toEqual({ account: ACCOUNT_18, opportunity: OPP_18 });
  });

  it('when the mapping rules rename the keys, then only the configured keys are read', () => {
    const keys = { opportunity: 'crmDeal', account: 'crmAccount', lead: 'crmLead' };

    expect(explicitIds(event({ extendedProperties: { private: { sfOpportunityId: OPP_18, crmDeal: OPP_15 } } }), keys)).toEqual({ opportunity: OPP_18 });
    expect(explicitIds(event({ extendedProperties: { private: { sfOpportunityId: OPP_18 } } }), keys)).toEqual({});
  });

  it('when a key holds an id of another kind or garbage, then it is ignored', () => {
    const found = explicitIds(event({ extendedProperties: { private: { sfOpportunityId: ACCOUNT_18, sfLeadId: 'not an id' } } }), DEFAULT_EXPLICIT_ID_KEYS);

    expect(found).toEqual({});
  });

  it('when the generic body names ids, then they are used as given', () => {
    expect(explicitIds(event({ origin: 'calendar', explicitIds: { leadId: LEAD_18 } }), DEFAULT_EXPLICIT_ID_KEYS)).toEqual({ lead: LEAD_18 });
  });
});
