import { randomBytes } from 'node:crypto';

import type { RecordedZoomRequest, ZoomParticipant, ZoomParticipantInput, ZoomSend } from './fake-zoom-types.ts';

/**
 * The fake Zoom's past meetings and `GET /v2/past_meetings/{uuid}/participants`, paged with
 * `next_page_token`, holding Zoom's rule that a uuid beginning with `/` or holding `//` is
 * URL-encoded twice in a path (and every other uuid once).
 */

type Meeting = { participants: ZoomParticipant[]; state: 'known' | 'forgotten' | 'year-old' };

export interface ZoomMeetings {
  setParticipants(uuid: string, participants: ZoomParticipantInput[]): ZoomParticipant[];
  forgetMeeting(uuid: string, options?: { yearOld?: boolean }): void;
  /** Answers the participants of the meeting the raw path `segment` names, once the caller is authorised. */
  handleParticipants(segment: string, query: URLSearchParams, record: RecordedZoomRequest, send: ZoomSend): void;
}

/** Zoom's rule: a uuid that begins with `/` or holds `//` must be URL-encoded twice in a path. */
const needsDoubleEncoding = (uuid: string) => uuid.startsWith('/') || uuid.includes('//');
const decode = (text: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
};
const isoSeconds = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export function createZoomMeetings(maxPageSize: number): ZoomMeetings {
  const meetings = new Map<string, Meeting>();
  const pageTokens = new Map<string, { uuid: string; offset: number }>();
  const meetingOf = (uuid: string) => {
    let meeting = meetings.get(uuid);
    if (!meeting) meetings.set(uuid, (meeting = { participants: [], state: 'known' }));
    return meeting;
  };

  /** The uuid a raw path segment names: encoded once normally, twice when Zoom's rule asks for it; anything else names nothing. */
  function resolveUuid(segment: string): string | undefined {
    const once = decode(segment);
    if (once === undefined) return undefined;
    if (!needsDoubleEncoding(once) && meetings.has(once)) return once;
    // Encoded twice, the slashes are still encoded after Zoom's own decoding of the path.
    const twice = once.includes('/') ? undefined : decode(once);
    return twice !== undefined && needsDoubleEncoding(twice) && meetings.has(twice) ? twice : undefined;
  }

  return {
    setParticipants(uuid, participants) {
      const meeting = meetingOf(uuid);
      const joined = Date.now() - 3_600_000;
      meeting.state = 'known';
      meeting.participants = participants.map((input, index) => {
        const join = Date.parse(input.join_time ?? isoSeconds(joined + index * 1000));
        const leave = Date.parse(input.leave_time ?? isoSeconds(join + 2_400_000));
        return {
          id: input.id ?? randomBytes(16).toString('base64url').slice(0, 22),
          name: input.name,
          user_email: input.user_email ?? '',
          join_time: isoSeconds(join),
          leave_time: isoSeconds(leave),
          duration: input.duration ?? Math.round((leave - join) / 1000),
          ...(input.registrant_id === undefined ? {} : { registrant_id: input.registrant_id }),
          status: input.status ?? 'in_meeting',
        };
      });
      return meeting.participants;
    },
    forgetMeeting(uuid, options = {}) {
      meetingOf(uuid).state = options.yearOld ? 'year-old' : 'forgotten';
    },
    handleParticipants(segment, query, record, send) {
      const uuid = segment.includes('/') ? undefined : resolveUuid(segment);
      const meeting = uuid === undefined ? undefined : meetings.get(uuid);
      record.meetingUuid = meeting?.state === 'known' ? uuid : undefined;
      if (meeting?.state === 'year-old') return send(400, { code: 12702, message: 'Can not access a meeting a year ago.' });
      if (uuid === undefined || meeting?.state !== 'known') {
        // Zoom names the uuid as its router saw it: decoded once, leading slashes gone.
        const named = (decode(segment) ?? segment).replace(/^\/+/, '');
        return send(404, { code: 3001, message: `Meeting does not exist: ${named}.` });
      }
      const requested = Number(query.get('page_size') ?? 30);
      const pageSize = Math.min(Number.isInteger(requested) && requested > 0 ? Math.min(requested, 300) : 30, maxPageSize);
      const nextToken = query.get('next_page_token') ?? '';
      const cursor = nextToken === '' ? { uuid, offset: 0 } : pageTokens.get(nextToken);
      if (!cursor || cursor.uuid !== uuid) return send(400, { code: 300, message: 'The next page token is invalid or expired.' });
      const all = meeting.participants;
      const end = cursor.offset + pageSize;
      let next = '';
      if (end < all.length) {
        next = randomBytes(24).toString('base64url');
        pageTokens.set(next, { uuid, offset: end });
      }
      send(200, {
        page_count: Math.ceil(all.length / pageSize),
        page_size: pageSize,
        total_records: all.length,
        next_page_token: next,
        participants: all.slice(cursor.offset, end),
      });
    },
  };
}
