import { describe, expect, it } from 'vitest';

import { readMeetingPage } from '../../src/momentum/meeting-list.ts';

/*
 * One page of Momentum's meetings list as the bridge reads it (docs/protocols.md §1): a missing or
 * null pageCount says nothing, so a full page means there may be another.
 */

const meeting = (n: number) => ({ id: `m-${n}`, title: `Meeting ${n}`, attendees: [] });

describe('a page of the meetings list', () => {
  it.each([
    ['null', null],
    ['missing', undefined],
  ])('when pageCount is %s and the page is full, then another page may follow; when it is not full, this is the last', (_case, pageCount) => {
    const full = readMeetingPage({ meetings: [meeting(1), meeting(2)], ...(pageCount === undefined ? {} : { pageCount }) }, { pageNumber: 3, pageSize: 2 });
    const short = readMeetingPage({ meetings: [meeting(1)], ...(pageCount === undefined ? {} : { pageCount }) }, { pageNumber: 3, pageSize: 2 });

    expect(full).toMatchObject({ page: { pageCount: 4 } });
    expect(short).toMatchObject({ page: { pageCount: 3 } });
  });
});
