import { describe, expect, it } from 'vitest';

import type { RemapArrival } from '../../bench/matching/bench-bridge.ts';
import { answersOf } from '../../bench/matching/bridge-run.ts';
import { type CatchUpGroups, scoreCatchUp, standingOf } from '../../bench/matching/catch-up-score.ts';
import { generateMatchingSet } from '../../bench/matching/generate.ts';

/* The matching benchmark's catch-up phase without a bridge: what the generator holds out of the org, and how remaps after the change count. */

const ACCOUNT = '0018d0000000001AAA';
const NEW_DEAL = '0068d0000000901AAA';
const OLD_DEAL = '0068d0000000002AAA';
const CHANGE_AT = 10_000;

const remap = (at: number, id: string, records: RemapArrival['records']): RemapArrival => ({ at, id, records });
const groups = (overrides: Partial<CatchUpGroups> = {}): CatchUpGroups => ({
  moving: new Map([['catch-up-001', { opportunityId: NEW_DEAL, accountId: ACCOUNT }]]),
  pinned: new Set(['catch-up-003']),
  final: new Set(['single-deal-001']),
  ...overrides,
});

describe('bench matching catch-up generator', () => {
  it('when generated, then each catch-up meeting is labelled with its Account alone and its new opportunity is held out of the org, with an attendee as its contact role', () => {
    const { org, catchUp } = generateMatchingSet({ seed: 7, perCategory: 2, filler: 2, catchUp: 8 });
    const deferred = (sObject: 'Opportunity' | 'OpportunityContactRole' | 'Contact', id: string) =>
      catchUp.deferred[sObject].find((record) => record.Id === id || record.OpportunityId === id);

    expect(catchUp.meetings).toHaveLength(8);
    for (const { meeting, after } of catchUp.meetings) {
      expect(meeting.expected).toEqual({ kind: 'records', accountId: after.accountId });
      expect(org.Opportunity!.some((record) => record.Id === after.opportunityId)).toBe(false);
      expect(deferred('Opportunity', after.opportunityId!)).toMatchObject({ AccountId: after.accountId, IsClosed: false });
      expect(Date.parse(String(deferred('Opportunity', after.opportunityId!)!.CreatedDate))).toBeGreaterThan(meeting.startMs);
      const role = deferred('OpportunityContactRole', after.opportunityId!);
      const contact = [...org.Contact!, ...catchUp.deferred.Contact].find((record) => record.Id === role?.ContactId);
      expect(meeting.attendees.map((email) => email.toLowerCase())).toContain(String(contact?.Email).toLowerCase());
    }
    expect(catchUp.pins.map((pin) => pin.meetingId)).toContain('catch-up-003');
    expect(catchUp.decoyTargets.length).toBeGreaterThan(0);
  });
});

describe('bench matching catch-up scorer', () => {
  it('when a catch-up meeting moves to its opportunity after the change, then it counts as moved, with the time of its remap', () => {
    const remaps = [remap(5_000, 'catch-up-001', { accountId: ACCOUNT }), remap(11_500, 'catch-up-001', { opportunityId: NEW_DEAL, accountId: ACCOUNT })];

    const result = scoreCatchUp(remaps, CHANGE_AT, groups());

    expect(result).toMatchObject({ moving: 1, moved: 1, notMoved: [], remapsAfter: 1, unchanged: [], firstMs: 1_500, lastMs: 1_500 });
  });

  it('when a remap after the change names the records already sent, then it changed nothing; a first remap of a meeting always changed something', () => {
    const remaps = [
      remap(5_000, 'catch-up-001', { accountId: ACCOUNT }),
      remap(10_200, 'catch-up-001', { accountId: ACCOUNT }),
      remap(10_300, 'unknown-domain-001', { accountId: ACCOUNT }),
    ];

    const result = scoreCatchUp(remaps, CHANGE_AT, groups());

    expect(result.unchanged).toEqual(['catch-up-001']);
    expect(result).toMatchObject({ moved: 0, remapsAfter: 2, firstMs: 200, lastMs: 300 });
    expect(result.notMoved).toEqual([{ id: 'catch-up-001', standing: 'still no opportunity', records: { accountId: ACCOUNT } }]);
  });

  it('when a pinned or final meeting gets any remap after the change, then it is touched; remaps before the change touch nothing', () => {
    const remaps = [
      remap(1_000, 'catch-up-003', { accountId: ACCOUNT }),
      remap(2_000, 'single-deal-001', { opportunityId: OLD_DEAL, accountId: ACCOUNT }),
      remap(12_000, 'single-deal-001', { opportunityId: NEW_DEAL, accountId: ACCOUNT }),
    ];

    const result = scoreCatchUp(remaps, CHANGE_AT, groups());

    expect(result).toMatchObject({ pinnedTouched: [], finalTouched: ['single-deal-001'] });
    expect(scoreCatchUp(remaps.slice(0, 2), CHANGE_AT, groups())).toMatchObject({ pinnedTouched: [], finalTouched: [], remapsAfter: 0 });
    expect(scoreCatchUp(remaps.slice(0, 2), CHANGE_AT, groups()).lastMs).toBeUndefined();
  });

  it('when remaps arrive out of order in the log, then they are read in arrival order', () => {
    const remaps = [remap(11_000, 'catch-up-001', { opportunityId: NEW_DEAL, accountId: ACCOUNT }), remap(4_000, 'catch-up-001', { accountId: ACCOUNT })];

    expect(scoreCatchUp(remaps, CHANGE_AT, groups())).toMatchObject({ moved: 1, unchanged: [], remapsAfter: 1 });
  });

  it('when a catch-up meeting ends on another opportunity or has no remap, then its standing says so', () => {
    expect(standingOf({ opportunityId: NEW_DEAL, accountId: ACCOUNT }, { opportunityId: OLD_DEAL, accountId: ACCOUNT })).toBe('wrong opportunity');
    expect(standingOf({ opportunityId: NEW_DEAL, accountId: ACCOUNT }, undefined)).toBe('no remap');
    expect(scoreCatchUp([], CHANGE_AT, groups()).notMoved).toEqual([{ id: 'catch-up-001', standing: 'no remap' }]);
  });

  it('when one meeting is remapped twice, then its newest answer stands and the second arrival counts as a repeat', () => {
    const remaps = [remap(1, 'owner-001', { accountId: ACCOUNT }), remap(2, 'owner-001', { opportunityId: OLD_DEAL, accountId: ACCOUNT })];

    expect(answersOf(remaps)).toEqual({ answers: new Map([['owner-001', { opportunityId: OLD_DEAL, accountId: ACCOUNT }]]), duplicates: 1 });
  });
});
