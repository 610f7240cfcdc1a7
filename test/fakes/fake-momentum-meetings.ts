/**
 * The meetings the fake Momentum holds, for `GET /v1/meetings` (docs/protocols.md §1): a test
 * holds meetings (as Momentum's calendar sync would have them), and each remap the fake accepts is
 * applied to the meeting it names, as Momentum does some time after answering. A test can make the
 * fake accept remaps without applying them, or script the listing's answers through the fake's
 * reply queue like any other request.
 */

export interface FakeListedMeeting {
  id: number | string;
  title?: string;
  startTime?: string;
  endTime?: string;
  host?: { email?: string; name?: string };
  attendees?: Array<{ email?: string; name?: string; isInternal?: boolean; salesforceLeadId?: string }>;
  salesforceAccountId?: string;
  salesforceOpportunityId?: string;
  /** Anything else the listing carries (a transcript): the bridge must drop it. */
  [extra: string]: unknown;
}

export interface FakeMeetingBook {
  /** Every meeting held, in the order listed. */
  readonly meetings: FakeListedMeeting[];
  /** Holds these meetings (ids numbered on when left out). */
  hold(...meetings: Array<Omit<FakeListedMeeting, 'id'> & { id?: number | string }>): FakeListedMeeting[];
  /** false: remaps are accepted and never applied (Momentum accepted but did not apply them). Default true. */
  applyRemaps(apply: boolean): void;
  /** false: a remap naming a meeting not held is dropped instead of making one. Default true. */
  learnFromRemaps(learn: boolean): void;
  /** An accepted remap body: applied to the meeting it names (or, learning, a new meeting). */
  remapAccepted(body: unknown): void;
  /** An accepted import body: a new meeting. */
  importAccepted(body: unknown): void;
  /** The answer to a listing query: `{meetings, pageCount}`, or a 400 for a query Momentum refuses. */
  list(query: Record<string, string>): { status: number; body: unknown };
}

type Json = Record<string, unknown>;
const asObject = (value: unknown): Json => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {});
const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const instant = (value: unknown): number => (typeof value === 'string' ? Date.parse(value) : Number.NaN);

export function createFakeMeetingBook(): FakeMeetingBook {
  const meetings: FakeListedMeeting[] = [];
  let nextId = 9_001;
  let apply = true;
  let learn = true;

  const named = (details: Json): FakeListedMeeting | undefined => {
    if (details.momentumMeetingId !== undefined) return meetings.find((meeting) => String(meeting.id) === String(details.momentumMeetingId));
    const start = instant(details.startTime);
    const fits = meetings.filter(
      (meeting) =>
        instant(meeting.startTime) === start &&
        (details.title === undefined || meeting.title === details.title) &&
        (details.hostEmail === undefined || meeting.host?.email?.toLowerCase() === String(details.hostEmail).toLowerCase()),
    );
    return fits.length === 1 ? fits[0] : undefined;
  };

  const book: FakeMeetingBook = {
    meetings,
    hold(...added) {
      const made = added.map((meeting) => ({ ...meeting, id: meeting.id ?? nextId++ }));
      meetings.push(...made);
      return made;
    },
    applyRemaps: (value) => void (apply = value),
    learnFromRemaps: (value) => void (learn = value),
    remapAccepted(body) {
      if (!apply) return;
      const request = asObject(body);
      const details = asObject(request.meetingDetails);
      const records = asObject(request.salesforceRecords);
      const ids = { salesforceOpportunityId: text(records.opportunityId), salesforceAccountId: text(records.accountId) };
      const held = named(details);
      if (held !== undefined) {
        delete held.salesforceOpportunityId;
        delete held.salesforceAccountId;
        Object.assign(held, JSON.parse(JSON.stringify(ids)));
      } else if (learn && text(details.startTime) !== undefined) {
        book.hold({ title: text(details.title), startTime: text(details.startTime), host: { email: text(details.hostEmail) }, attendees: [], ...ids });
      }
    },
    importAccepted(body) {
      const meeting = asObject(asObject(body).meeting);
      book.hold({ ...meeting, id: nextId++ });
    },
    list(query) {
      const pageNumber = Number(query.pageNumber ?? '1');
      const pageSize = Number(query.pageSize ?? '10');
      // Momentum's reference says 1 to 100 in prose and enforces 1 to 50.
      if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 50) return { status: 400, body: { error: 'pageSize must be between 1 and 50' } };
      if (query.salesforceAccountId !== undefined && query.salesforceOpportunityId !== undefined) {
        return { status: 400, body: { error: 'salesforceAccountId and salesforceOpportunityId cannot be used together' } };
      }
      const from = query.from === undefined ? -Infinity : Date.parse(query.from);
      const to = query.to === undefined ? Infinity : Date.parse(query.to);
      const inRange = meetings.filter((meeting) => {
        const start = instant(meeting.startTime);
        const end = meeting.endTime === undefined ? start : instant(meeting.endTime);
        if (!(start >= from && end <= to)) return false;
        if (query.salesforceAccountId !== undefined && meeting.salesforceAccountId !== query.salesforceAccountId) return false;
        return query.salesforceOpportunityId === undefined || meeting.salesforceOpportunityId === query.salesforceOpportunityId;
      });
      const page = inRange.slice((pageNumber - 1) * pageSize, pageNumber * pageSize);
      return { status: 200, body: { meetings: page, pageCount: Math.max(1, Math.ceil(inRange.length / pageSize)) } };
    },
  };
  return book;
}
