import { describe, expect, it } from 'vitest';

import { MAX_ATTENDEES } from '../../src/core/attendee-bound.ts';
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

  it('when an id is a number past 2^53, then that meeting is unreadable, not rounded into another; a webinar keeps the attendee bound', () => {
    const attendees = Array.from({ length: MAX_ATTENDEES + 500 }, (_, n) => ({ email: `guest${n}@example.com` }));

    const read = readMeetingPage(
      {
        meetings: [
          { id: 2 ** 53 + 2, title: 'Too big' },
          { id: 12345, title: 'Webinar', attendees },
        ],
        pageCount: 1,
      },
      { pageNumber: 1, pageSize: 50 },
    );

    expect(read).toMatchObject({ page: { unreadable: 1, meetings: [{ id: '12345' }] } });
    const [webinar] = 'page' in read ? read.page.meetings : [];
    expect(webinar?.attendees).toHaveLength(MAX_ATTENDEES);
  });
});
