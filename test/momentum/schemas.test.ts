import { describe, expect, it } from 'vitest';

import { describeIssues } from '../../src/core/describe-issues.ts';
import {
  importDeliveryPayloadSchema,
  importRequestSchema,
  KNOWN_SOURCE_TYPES,
  remapDeliveryPayloadSchema,
  remapRequestSchema,
  remapResponseSchema,
} from '../../src/momentum/schemas.ts';

const records = { opportunityId: '0065w000023STAmAAO' };

function issuesOf(result: ReturnType<typeof remapRequestSchema.safeParse>): string {
  return result.success ? '' : describeIssues(result.error);
}

describe('remapRequestSchema', () => {
  it('when only source is given, then the request is valid and unchanged', () => {
    const request = { source: { id: 'evt-1', type: 'GOOGLE_CALENDAR' }, salesforceRecords: records };

    const result = remapRequestSchema.safeParse(request);

    expect(result.success).toBe(true);
    expect(result.data).toEqual(request);
  });

  it('when only meetingDetails is given, then the request is valid', () => {
    const request = {
      salesforceRecords: { accountId: '0015w00002ABCDEAAA', leadId: '00Q5w00001XYZabEAF' },
      meetingDetails: { title: 'QBR', startTime: '2026-05-08T13:40:22.000Z', hostEmail: 'ae@example.com' },
    };

    expect(remapRequestSchema.safeParse(request).data).toEqual(request);
  });

  it('when neither source nor meetingDetails is given, then it is refused with that rule', () => {
    const result = remapRequestSchema.safeParse({ salesforceRecords: records });

    expect(result.success).toBe(false);
    expect(issuesOf(result)).toBe('(root): a remap needs source or meetingDetails');
  });

  it('when salesforceRecords holds no id, then it is refused naming the three fields', () => {
    const result = remapRequestSchema.safeParse({ source: { id: 'e', type: 'ZOOM' }, salesforceRecords: {} });

    expect(issuesOf(result)).toBe('salesforceRecords: salesforceRecords needs at least one of opportunityId, accountId, leadId');
  });

  it('when salesforceRecords is missing, then it is refused', () => {
    expect(issuesOf(remapRequestSchema.safeParse({ source: { id: 'e', type: 'ZOOM' } }))).toMatch(/^salesforceRecords: /);
  });

  it('when momentumMeetingId is not an integer, then it is refused', () => {
    for (const momentumMeetingId of [1.5, '42', Number.NaN]) {
      const result = remapRequestSchema.safeParse({ salesforceRecords: records, meetingDetails: { momentumMeetingId } });
      expect(issuesOf(result)).toMatch(/^meetingDetails\.momentumMeetingId: /);
    }
  });

  it('when momentumMeetingId is an integer alone, then the other meeting fields are not needed', () => {
    expect(remapRequestSchema.safeParse({ salesforceRecords: records, meetingDetails: { momentumMeetingId: 42 } }).success).toBe(true);
  });

  it('when meetingDetails is empty, then it is refused because it names no meeting', () => {
    expect(issuesOf(remapRequestSchema.safeParse({ salesforceRecords: records, meetingDetails: {} }))).toBe(
      'meetingDetails: meetingDetails needs momentumMeetingId or at least one of title, startTime, hostEmail',
    );
  });

  it('when startTime has no offset or hostEmail is not an email, then each is refused by path', () => {
    const result = remapRequestSchema.safeParse({
      salesforceRecords: records,
      meetingDetails: { startTime: '2026-05-08 13:40', hostEmail: 'not-an-email' },
    });

    expect(issuesOf(result)).toContain('meetingDetails.startTime: expected an ISO 8601 date-time');
    expect(issuesOf(result)).toContain('meetingDetails.hostEmail: expected an email address');
  });

  it('when startTime carries an offset instead of Z, then it is accepted', () => {
    const request = { salesforceRecords: records, meetingDetails: { startTime: '2026-05-08T15:40:22+02:00' } };
    expect(remapRequestSchema.safeParse(request).success).toBe(true);
  });

  it('when the source type is not in the known list, then it is still accepted as given', () => {
    const request = { source: { id: 'call-9', type: 'SOME_NEW_RECORDER' }, salesforceRecords: records };

    expect(KNOWN_SOURCE_TYPES).not.toContain('SOME_NEW_RECORDER');
    expect(remapRequestSchema.safeParse(request).data).toEqual(request);
  });

  it('when an id is blank or an unknown field is present, then it is refused rather than sent', () => {
    expect(issuesOf(remapRequestSchema.safeParse({ source: { id: '  ', type: 'ZOOM' }, salesforceRecords: records }))).toBe(
      'source.id: expected a non-empty string',
    );
    expect(issuesOf(remapRequestSchema.safeParse({ source: { id: 'e', type: 'ZOOM' }, salesforceRecords: records, extra: 1 }))).toMatch(/Unrecognized key/);
  });
});

describe('remapResponseSchema', () => {
  it('when the response carries extra fields, then they are tolerated', () => {
    expect(remapResponseSchema.safeParse({ accepted: true, requestId: 'r-1', traceId: 'x' }).success).toBe(true);
  });

  it('when requestId is missing, then the response does not match', () => {
    expect(remapResponseSchema.safeParse({ accepted: true }).success).toBe(false);
  });
});

describe('importRequestSchema', () => {
  it('when only a few documented fields are given, then it is accepted with unknown fields kept', () => {
    const request = { meeting: { title: 'Demo', attendees: [{ email: 'a@example.com' }], vendorField: 'kept' }, processImportedMeeting: true };

    expect(importRequestSchema.safeParse(request).data).toEqual(request);
  });

  it('when a given field has the wrong type, then it is refused by path', () => {
    const result = importRequestSchema.safeParse({
      meeting: { startTime: 'yesterday', attendees: [{ email: 'x', isInternal: 'yes' }], callUrl: 'not a url' },
      processImportedMeeting: 'true',
    });

    expect(result.success).toBe(false);
    const paths = result.error?.issues.map((issue) => issue.path.join('.'));
    expect(paths).toEqual(
      expect.arrayContaining(['meeting.startTime', 'meeting.attendees.0.email', 'meeting.attendees.0.isInternal', 'meeting.callUrl', 'processImportedMeeting']),
    );
  });

  it('when meeting is missing, then it is refused', () => {
    expect(importRequestSchema.safeParse({ processImportedMeeting: true }).success).toBe(false);
  });
});

describe('delivery payload schemas', () => {
  it('when a remap payload has no flags, then both flags default to false', () => {
    const request = { source: { id: 'e', type: 'ZOOM' }, salesforceRecords: records };

    expect(remapDeliveryPayloadSchema.parse({ request })).toEqual({ request, flags: { triggerSummary: false, triggerAiSignals: false } });
  });

  it('when a remap payload carries replay, then it is kept', () => {
    const payload = {
      request: { source: { id: 'e', type: 'ZOOM' }, salesforceRecords: records },
      flags: { triggerSummary: true, triggerAiSignals: false },
      replay: true,
    };

    expect(remapDeliveryPayloadSchema.parse(payload)).toEqual(payload);
  });

  it('when an import payload has no request, then it is refused', () => {
    expect(importDeliveryPayloadSchema.safeParse({}).success).toBe(false);
  });
});
