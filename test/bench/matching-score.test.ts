import { describe, expect, it } from 'vitest';

import { generateMatchingSet } from '../../bench/matching/generate.ts';
import { CATEGORIES, type LabelledMeeting } from '../../bench/matching/labels.ts';
import { type Answer, differingAnswers, judge, score } from '../../bench/matching/score.ts';

/* The matching benchmark's generator and scorer on a tiny set, without a bridge: what the labels are and how answers count. */

const tiny = () => generateMatchingSet({ seed: 7, perCategory: 2, filler: 2 });

/** The answer the label asks for under the default policy: the records, the tie's Account alone, or nothing. */
function labelled(meeting: LabelledMeeting): Answer {
  const { expected } = meeting;
  if (expected.kind === 'none') return undefined;
  if (expected.kind === 'ambiguous') return expected.accountId === undefined ? undefined : { accountId: expected.accountId };
  const { kind: _kind, ...records } = expected;
  return records;
}

const firstOf = (meetings: LabelledMeeting[], test: (meeting: LabelledMeeting) => boolean) => {
  const found = meetings.find(test);
  if (found === undefined) throw new Error('the tiny set lacks the meeting this test needs');
  return found;
};
const withOpportunity = (meeting: LabelledMeeting) => meeting.expected.kind === 'records' && meeting.expected.opportunityId !== undefined;

describe('bench matching generator', () => {
  it('when generated twice from one seed, then the org and the meetings are the same, each category twice, ids unique', () => {
    const first = tiny();
    const second = tiny();

    expect(second.org).toEqual(first.org);
    expect(second.meetings).toEqual(first.meetings);
    expect(new Set(first.meetings.map((meeting) => meeting.id)).size).toBe(first.meetings.length);
    for (const category of Object.keys(CATEGORIES)) expect(first.meetings.filter((meeting) => meeting.category === category)).toHaveLength(2);
  });

  it('when a label names records, then they exist in the org and its opportunity is on its Account', () => {
    const { org, meetings } = tiny();
    const byId = (sObject: string, id: string) => org[sObject]?.find((record) => record.Id === id);

    for (const { expected } of meetings) {
      if (expected.kind === 'none') continue;
      const pairs = expected.kind === 'ambiguous' ? expected.tied : expected.opportunityId === undefined ? [] : [expected];
      for (const pair of pairs) expect(byId('Opportunity', pair.opportunityId!)?.AccountId).toBe(pair.accountId);
      if (expected.accountId !== undefined) expect(byId('Account', expected.accountId)).toBeDefined();
      if (expected.kind === 'records' && expected.leadId !== undefined) expect(byId('Lead', expected.leadId)?.IsConverted).toBe(false);
    }
  });
});

describe('bench matching scorer', () => {
  it('when every answer is the label, then every meeting is exact and nothing is wrong, guessed or linked', () => {
    const { meetings } = tiny();

    const result = score(meetings.map((meeting) => judge(meeting, labelled(meeting))));

    expect(result).toMatchObject({
      meetings: meetings.length,
      exact: meetings.length,
      precision: 1,
      recall: 1,
      accountAccuracy: 1,
      wrongLinks: 0,
      guessed: 0,
      linkedNone: 0,
    });
    expect(result.flagged).toBe(result.ambiguous);
  });

  it('when a remap names the wrong opportunity, then it counts as a wrong link and lowers precision and recall', () => {
    const meeting = firstOf(tiny().meetings, withOpportunity);

    const verdict = judge(meeting, { ...labelled(meeting), opportunityId: '0068d0000000999AAA' });

    expect(verdict).toMatchObject({ exact: false, opportunity: { sent: true, right: false } });
    expect(verdict.wrong).toHaveLength(1);
    expect(score([verdict])).toMatchObject({ precision: 0, recall: 0, wrongLinks: 1 });
  });

  it('when no opportunity is sent for a meeting with one right opportunity, then it is a miss: recall drops, precision has nothing to count', () => {
    const meeting = firstOf(tiny().meetings, withOpportunity);
    const expected = meeting.expected as { accountId: string };

    const verdict = judge(meeting, { accountId: expected.accountId });

    expect(verdict).toMatchObject({ exact: false, wrong: [], accountRight: true, opportunity: { sent: false, right: false } });
    expect(score([verdict])).toMatchObject({ recall: 0, opportunitySent: 0, wrongLinks: 0 });
    expect(score([verdict]).precision).toBeNaN();
  });

  it('when the right opportunity is sent without its Account, then the Account counts as right: the opportunity names it', () => {
    const meeting = firstOf(tiny().meetings, withOpportunity);
    const expected = meeting.expected as { opportunityId: string };

    const verdict = judge(meeting, { opportunityId: expected.opportunityId });

    expect(verdict).toMatchObject({ exact: true, accountRight: true, wrong: [] });
  });

  it('when a meeting that should match nothing gets a record, then it is linked and a wrong link', () => {
    const meeting = firstOf(tiny().meetings, (entry) => entry.expected.kind === 'none');

    const verdict = judge(meeting, { accountId: '0018d0000000001AAA' });

    expect(verdict).toMatchObject({ exact: false, linkedNone: true });
    expect(score([verdict])).toMatchObject({ noneMeetings: 1, linkedNone: 1, wrongLinks: 1 });
    expect(judge(meeting, undefined)).toMatchObject({ exact: true, linkedNone: false, wrong: [] });
  });

  it('when an ambiguous meeting gets an opportunity of its tie, then it is guessed, not wrong; one outside the tie is a wrong link', () => {
    const meeting = firstOf(tiny().meetings, (entry) => entry.category === 'ambiguous');
    const expected = meeting.expected as { accountId: string; tied: Array<{ opportunityId: string; accountId: string }> };

    const guess = judge(meeting, { opportunityId: expected.tied[1]!.opportunityId, accountId: expected.accountId });
    const outside = judge(meeting, { opportunityId: '0068d0000000999AAA', accountId: expected.accountId });
    const flagged = judge(meeting, { accountId: expected.accountId });

    expect(guess).toMatchObject({ exact: false, guessed: true, wrong: [], accountRight: true });
    expect(outside.wrong).toHaveLength(1);
    expect(flagged).toMatchObject({ exact: true, guessed: false });
    expect(score([guess, flagged])).toMatchObject({ ambiguous: 2, guessed: 1, flagged: 1, wrongLinks: 0 });
  });

  it('when a Lead meeting gets an Account beside its Lead, then the Account is a wrong link', () => {
    const meeting = firstOf(tiny().meetings, (entry) => entry.expected.kind === 'records' && entry.expected.leadId !== undefined);

    const verdict = judge(meeting, { ...labelled(meeting), accountId: '0018d0000000001AAA' });

    expect(verdict).toMatchObject({ exact: false });
    expect(verdict.wrong).toEqual([expect.stringContaining('accountId 0018d0000000001AAA')]);
  });

  it('when two runs answer one meeting differently, then exactly that meeting differs, whatever the key order', () => {
    const [first, second, third] = tiny().meetings;
    const burst = new Map<string, Answer>([
      [first!.id, { opportunityId: '0068d0000000001AAA', accountId: '0018d0000000001AAA' }],
      [second!.id, { accountId: '0018d0000000002AAA' }],
    ]);
    const alone = new Map<string, Answer>([
      [first!.id, { accountId: '0018d0000000001AAA', opportunityId: '0068d0000000001AAA' }],
      [third!.id, { accountId: '0018d0000000003AAA' }],
    ]);

    expect(differingAnswers([first!, second!, third!], burst, alone)).toEqual([second!.id, third!.id]);
  });
});
