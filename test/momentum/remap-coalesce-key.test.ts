import { describe, expect, it } from 'vitest';

import { remapCoalesceKey } from '../../src/momentum/remap-coalesce-key.ts';

describe('remapCoalesceKey', () => {
  const salesforceRecords = { accountId: '0015w00002ABCDEAAA' };

  it('when the request has a source, then the key is the source type and id', () => {
    expect(remapCoalesceKey({ source: { id: 'abc', type: 'ZOOM' }, salesforceRecords, meetingDetails: { momentumMeetingId: 5 } })).toBe('source:ZOOM:abc');
  });

  it('when the request has a Momentum meeting id and no source, then the key is that id', () => {
    expect(remapCoalesceKey({ salesforceRecords, meetingDetails: { momentumMeetingId: 5, title: 'x' } })).toBe('momentum:5');
  });

  it('when only host, start and title are known, then the key joins them with the email lower-cased', () => {
    expect(remapCoalesceKey({ salesforceRecords, meetingDetails: { hostEmail: 'AE@Example.com', startTime: '2026-05-08T13:40:22Z', title: 'QBR' } })).toBe(
      'meeting:ae@example.com|2026-05-08T13:40:22.000Z|QBR',
    );
    expect(remapCoalesceKey({ salesforceRecords, meetingDetails: { title: 'QBR' } })).toBe('meeting:||QBR');
  });

  it('when one instant is written with an offset or without milliseconds, then the key is the same', () => {
    const a = remapCoalesceKey({ salesforceRecords, meetingDetails: { startTime: '2026-05-08T15:40:22+02:00' } });
    const b = remapCoalesceKey({ salesforceRecords, meetingDetails: { startTime: '2026-05-08T13:40:22.000Z' } });
    expect(a).toBe(b);
  });
});
