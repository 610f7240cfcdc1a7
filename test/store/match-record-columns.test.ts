import { describe, expect, it } from 'vitest';

import { matchRecordParams, withColumns } from '../../src/store/match-types.ts';

const match = {
  eventId: 7,
  meetingKey: 'google:abc',
  outcome: 'matched',
  rule: 'only_candidate',
  summary: 'Opportunity 006… (Renewal): the only opportunity of the attendees’ Account in the window',
  record: {
    version: 1,
    candidates: [{ id: '006' }],
    outcome: 'matched',
    rule: 'only_candidate',
    summary: 'Opportunity 006… (Renewal): the only opportunity of the attendees’ Account in the window',
  },
};

describe('a match record stores its outcome, rule and summary once', () => {
  it('when a match is stored, then its JSON leaves out the fields its columns hold, and reading puts them back as they were', () => {
    const stored = JSON.parse(String(matchRecordParams(match, 1, 0)[6])) as Record<string, unknown>;

    expect(stored).toEqual({ version: 1, candidates: [{ id: '006' }] });
    expect(withColumns(stored, match)).toEqual(match.record);
  });

  it('when a record field differs from its column (a summary cut to the column’s 1 000 characters), then the record keeps its own', () => {
    const long = { ...match, summary: 'x'.repeat(1200), record: { ...match.record, summary: 'x'.repeat(1200) } };
    const stored = JSON.parse(String(matchRecordParams(long, 1, 0)[6])) as Record<string, unknown>;

    expect(stored.summary).toBe('x'.repeat(1200));
    expect(withColumns(stored, { ...long, summary: 'x'.repeat(1000) })).toEqual(long.record);
  });
});
