import { MAX_PAGE_SIZE } from './meeting-list.ts';
import { findNamed, namedInImport, namedInRemap, type NamedMeeting } from './named-meeting.ts';
import type { ImportRequest, RemapRequest } from './schemas.ts';

/**
 * What the sandbox receiver holds, so `GET /v1/meetings` answers from what it received and the
 * read-back and reconcile work with no API key. An import becomes a meeting, as in Momentum. A
 * remap is applied to the meeting it names; one naming a meeting the sandbox does not hold yet
 * (Momentum would know it from the calendar) becomes one when it names a start. Nothing is kept
 * past the process.
 */

export interface SandboxMeeting {
  id: number;
  title?: string;
  startTime?: string;
  endTime?: string;
  host?: { email?: string; name?: string };
  attendees: Array<{ email?: string; name?: string; isInternal?: boolean }>;
  salesforceAccountId?: string;
  salesforceOpportunityId?: string;
}

export type ListAnswer = { status: 200; body: { meetings: SandboxMeeting[]; pageCount: number } } | { status: 400; body: { error: string } };

const view = (meeting: SandboxMeeting): NamedMeeting => {
  const startsAt = meeting.startTime === undefined ? undefined : Date.parse(meeting.startTime);
  return {
    momentumId: String(meeting.id),
    ...(startsAt === undefined || Number.isNaN(startsAt) ? {} : { startsAt }),
    ...(meeting.title?.trim() ? { title: meeting.title.trim() } : {}),
    ...(meeting.host?.email ? { host: meeting.host.email.toLowerCase() } : {}),
  };
};

const positive = (text: string | null, fallback: number): number => (text === null ? fallback : /^\d+$/.test(text) ? Number(text) : Number.NaN);

export function createSandboxMeetings() {
  const meetings: SandboxMeeting[] = [];
  let nextId = 1;

  const add = (meeting: Omit<SandboxMeeting, 'id'>): SandboxMeeting => {
    const made = { id: nextId++, ...meeting };
    meetings.push(made);
    return made;
  };

  return {
    remap(request: RemapRequest): void {
      const named = namedInRemap(request);
      const records = request.salesforceRecords;
      const held = findNamed(named, meetings, view);
      const ids = {
        ...(records.accountId ? { salesforceAccountId: records.accountId } : {}),
        ...(records.opportunityId ? { salesforceOpportunityId: records.opportunityId } : {}),
      };
      if (held !== undefined) {
        delete held.salesforceAccountId;
        delete held.salesforceOpportunityId;
        Object.assign(held, ids);
        return;
      }
      const details = request.meetingDetails;
      if (details?.startTime === undefined) return;
      add({
        ...(details.title ? { title: details.title } : {}),
        startTime: details.startTime,
        ...(details.hostEmail ? { host: { email: details.hostEmail } } : {}),
        attendees: [],
        ...ids,
      });
    },

    importMeeting(request: ImportRequest): void {
      // Imported once, as the bridge imports: the same meeting again replaces what the sandbox holds.
      const { meeting } = request;
      const existing = findNamed(namedInImport(request), meetings, view);
      if (existing !== undefined) meetings.splice(meetings.indexOf(existing), 1);
      add({
        ...(meeting.title ? { title: meeting.title } : {}),
        ...(meeting.startTime ? { startTime: meeting.startTime } : {}),
        ...(meeting.endTime ? { endTime: meeting.endTime } : {}),
        ...(meeting.host
          ? { host: { ...(meeting.host.email ? { email: meeting.host.email } : {}), ...(meeting.host.name ? { name: meeting.host.name } : {}) } }
          : {}),
        attendees: (meeting.attendees ?? []).map((attendee) => ({
          ...(attendee.email ? { email: attendee.email } : {}),
          ...(attendee.name ? { name: attendee.name } : {}),
          ...(attendee.isInternal === undefined ? {} : { isInternal: attendee.isInternal }),
        })),
        ...(meeting.salesforceAccountId ? { salesforceAccountId: meeting.salesforceAccountId } : {}),
        ...(meeting.salesforceOpportunityId ? { salesforceOpportunityId: meeting.salesforceOpportunityId } : {}),
      });
    },

    /** One page of the meetings starting at or after `from` and ending (or, without an end, starting) at or before `to`. */
    list(params: URLSearchParams): ListAnswer {
      const from = Date.parse(params.get('from') ?? '');
      const to = Date.parse(params.get('to') ?? '');
      const pageNumber = positive(params.get('pageNumber'), 1);
      const pageSize = positive(params.get('pageSize'), 10);
      const account = params.get('salesforceAccountId');
      const opportunity = params.get('salesforceOpportunityId');
      if (Number.isNaN(from) || Number.isNaN(to)) return { status: 400, body: { error: 'from and to must be date-times' } };
      if (!(pageNumber >= 1)) return { status: 400, body: { error: 'pageNumber must be at least 1' } };
      if (!(pageSize >= 1 && pageSize <= MAX_PAGE_SIZE)) return { status: 400, body: { error: `pageSize must be 1 to ${MAX_PAGE_SIZE}` } };
      if (account !== null && opportunity !== null)
        return { status: 400, body: { error: 'filter by salesforceAccountId or salesforceOpportunityId, not both' } };
      const inRange = meetings.filter((meeting) => {
        const start = Date.parse(meeting.startTime ?? '');
        const end = meeting.endTime === undefined ? start : Date.parse(meeting.endTime);
        if (Number.isNaN(start) || start < from || end > to) return false;
        if (account !== null && meeting.salesforceAccountId !== account) return false;
        return opportunity === null || meeting.salesforceOpportunityId === opportunity;
      });
      const page = inRange.slice((pageNumber - 1) * pageSize, pageNumber * pageSize);
      return { status: 200, body: { meetings: page, pageCount: Math.max(1, Math.ceil(inRange.length / pageSize)) } };
    },
  };
}

export type SandboxMeetings = ReturnType<typeof createSandboxMeetings>;
