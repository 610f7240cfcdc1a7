import { postCalendarEvent, TEAMS_MEETING } from '../../calendar/support/signed-events.ts';
import { recordingCompletedEvent, sendEvent, ZOOM_UUIDS } from '../../fakes/fake-zoom.ts';
import { eventNotification, notifications, outboundMessage } from '../../salesforce/support/outbound-message-builder.ts';

/*
 * Hostile input, route by route: what a hostile sender, a broken integration or a careless operator
 * sends each inbound route, and the precise 4xx each gets. The table test posts every case through
 * a real bridge on both engines and checks the answer, that nothing was stored, and that the admin
 * reads still answer afterwards.
 */

export const ADMIN_KEY = 'hostile-admin-key-0123456789';
export const ZOOM_SECRET = 'zoom-secret-token-hostile';
const MANY = 1_001;
const LONG = 'x'.repeat(100_000);

export interface Answer {
  status: number;
  body: string;
}

export interface HostileCase {
  route: string;
  what: string;
  /** Sends the case to the bridge at `url`. */
  send(url: string): Promise<Answer>;
  status: number;
  /** Text the answer must hold: the error code, and where it names one, the field. */
  says: readonly string[];
}

const answer = async (response: Response): Promise<Answer> => ({ status: response.status, body: await response.text() });

const soap = (xml: string) => (url: string) =>
  fetch(`${url}/salesforce/outbound-message`, { method: 'POST', headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: '""' }, body: xml }).then(
    answer,
  );

const signed = (body: unknown, id: string) => (url: string) => {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  return postCalendarEvent(url, raw, { id }).then(answer);
};

const zoom = (event: unknown) => (url: string) =>
  sendEvent(`${url}/recordings/zoom/events`, ZOOM_SECRET, event).then((sent) => ({ status: sent.status, body: sent.body }));

const admin = (path: string, body: unknown) => (url: string) =>
  fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
    body: JSON.stringify(body),
  }).then(answer);

const RECORDING = {
  kind: 'recording',
  version: 1,
  id: 'rec-hostile',
  recordingUrl: 'https://recorder.example.net/r/1',
  title: 'Globex follow-up',
  start: '2026-03-03T10:00:00Z',
  host: { email: 'ana.rep@example.com', name: 'Ana Rep' },
  attendees: [{ email: 'gail@globex.com' }],
};
const IMPORT = { meeting: { id: 'manual-1', title: 'Globex call', recordingUrl: 'https://recorder.example.net/r/2', startTime: '2026-03-03T10:00:00Z' } };
const REMAP = { source: { id: 'evt-1', type: 'GOOGLE_CALENDAR' }, salesforceRecords: { opportunityId: '0065w000023STAmAAO' } };
/** A recording.completed whose object lists `count` recording files (each as small as Zoom's shape allows). */
function withFiles(count: number) {
  const event = recordingCompletedEvent();
  return {
    ...event,
    payload: { ...event.payload, object: { ...event.payload.object, recording_files: Array.from({ length: count }, () => ({ status: 'completed' })) } },
  };
}
const people = (count: number) => Array.from({ length: count }, (_, index) => ({ email: `guest${index}@globex.com` }));

/** A live Google channel the table test stores before the cases run: the Google route answers for the channels it holds. */
export const GOOGLE_CHANNEL = {
  id: 'bridge-3f6c2b1e-6a4d-4f1b-9a57-0c1d2e3f4a5b',
  calendarId: 'ana.rep@example.com',
  token: 'tok_0123456789abcdef',
  resourceId: 'ret08u3rv24htgh289g',
};

const push =
  (headers: Record<string, string> = {}) =>
  (url: string) =>
    fetch(`${url}/calendar/google/notifications`, {
      method: 'POST',
      headers: {
        'x-goog-channel-id': GOOGLE_CHANNEL.id,
        'x-goog-channel-token': GOOGLE_CHANNEL.token,
        'x-goog-resource-id': GOOGLE_CHANNEL.resourceId,
        'x-goog-resource-state': 'exists',
        'x-goog-message-number': '10',
        ...headers,
      },
    }).then(answer);

const SF = 'POST /salesforce/outbound-message';
const GOOGLE = 'POST /calendar/google/notifications';
const MEETING = 'POST /calendar/events (meeting)';
const REC = 'POST /calendar/events (recording)';
const ZOOM = 'POST /recordings/zoom/events';
const MANUAL_REMAP = 'POST /admin/meetings/remap';
const MANUAL_IMPORT = 'POST /admin/meetings/import';

export const HOSTILE_CASES: readonly HostileCase[] = [
  // Salesforce: a notification's fields are the org's own, so unknown fields are its business; NUL, size and count are not.
  {
    route: SF,
    what: 'U+0000 as a character reference',
    send: soap(outboundMessage({ notifications: [eventNotification(1, { Subject: 'a' })] }).replace('>a<', '>&#0;<')),
    status: 400,
    says: ['U+0000'],
  },
  {
    route: SF,
    what: 'more notifications than Salesforce sends (101)',
    send: soap(outboundMessage({ notifications: notifications(101) })),
    status: 400,
    says: ['at most 100'],
  },
  // A long text field may hold 128 kB in a real org, so a long value is not hostile; a body past SALESFORCE_MAX_BODY is.
  {
    route: SF,
    what: 'a body past SALESFORCE_MAX_BODY (3 MB)',
    send: soap(outboundMessage({ notifications: [eventNotification(1, { Description: LONG.repeat(30) })] })),
    status: 413,
    says: ['SALESFORCE_MAX_BODY'],
  },
  // Google: headers only; the channel's own id and token decide, and nothing is stored for a refusal.
  { route: GOOGLE, what: 'a tab in X-Goog-Resource-ID', send: push({ 'x-goog-resource-id': 'ret08u3\trv24' }), status: 400, says: ['x-goog-resource-id'] },
  { route: GOOGLE, what: 'a 10 kB channel id', send: push({ 'x-goog-channel-id': 'c'.repeat(10_000) }), status: 400, says: ['invalid_notification'] },
  {
    route: GOOGLE,
    what: 'an unknown channel',
    send: push({ 'x-goog-channel-id': 'bridge-00000000-0000-4000-8000-000000000000' }),
    status: 404,
    says: ['unknown_channel'],
  },
  { route: GOOGLE, what: 'a forged channel token', send: push({ 'x-goog-channel-token': 'tok_forged' }), status: 403, says: ['channel_token_mismatch'] },
  { route: GOOGLE, what: 'an unknown resource state', send: push({ 'x-goog-resource-state': 'exploded' }), status: 400, says: ['X-Goog-Resource-State'] },
  // The signed route: one vocabulary, strict bodies.
  { route: MEETING, what: 'U+0000 in the title', send: signed({ ...TEAMS_MEETING, title: 'Pricing\u0000' }, 'msg_h1'), status: 400, says: ['title', 'U+0000'] },
  { route: MEETING, what: 'a 100 kB title', send: signed({ ...TEAMS_MEETING, title: LONG }, 'msg_h2'), status: 400, says: ['title'] },
  {
    route: MEETING,
    what: 'an unknown field',
    send: signed({ ...TEAMS_MEETING, host: { email: 'ana.rep@example.com' } }, 'msg_h3'),
    status: 400,
    says: ['host', 'unknown field'],
  },
  { route: MEETING, what: `${MANY} attendees`, send: signed({ ...TEAMS_MEETING, attendees: people(MANY) }, 'msg_h4'), status: 400, says: ['attendees'] },
  {
    route: REC,
    what: 'a javascript: recordingUrl',
    send: signed({ ...RECORDING, recordingUrl: 'javascript:alert(1)' }, 'msg_h5'),
    status: 400,
    says: ['recordingUrl', 'http'],
  },
  {
    route: REC,
    what: 'a data: callUrl',
    send: signed({ ...RECORDING, callUrl: 'data:text/html,<b>hi</b>' }, 'msg_h6'),
    status: 400,
    says: ['callUrl', 'http'],
  },
  {
    route: REC,
    what: 'the meeting word for its host (organizer)',
    send: signed({ ...RECORDING, organizer: { email: 'ana.rep@example.com' } }, 'msg_h7'),
    status: 400,
    says: ['organizer', 'host'],
  },
  { route: REC, what: `${MANY} attendees`, send: signed({ ...RECORDING, attendees: people(MANY) }, 'msg_h8'), status: 400, says: ['attendees'] },
  {
    route: REC,
    what: 'U+0000 in an attendee name',
    send: signed({ ...RECORDING, attendees: [{ email: 'gail@globex.com', name: 'Gail\u0000' }] }, 'msg_h9'),
    status: 400,
    says: ['attendees.0.name', 'U+0000'],
  },
  { route: REC, what: 'a 100 kB title', send: signed({ ...RECORDING, title: LONG }, 'msg_h10'), status: 400, says: ['title'] },
  // Zoom: loose bodies (Zoom adds fields), but nothing unstorable and only http(s) links.
  {
    route: ZOOM,
    what: 'U+0000 in the uuid',
    send: zoom(recordingCompletedEvent({ uuid: 'abc\u0000==' })),
    status: 400,
    says: ['payload.object.uuid', 'U+0000'],
  },
  {
    route: ZOOM,
    what: 'U+0000 in the topic',
    send: zoom(recordingCompletedEvent({ uuid: ZOOM_UUIDS.plain, topic: 'Demo\u0000' })),
    status: 400,
    says: ['payload.object.topic'],
  },
  {
    route: ZOOM,
    what: 'a javascript: share_url',
    send: zoom(recordingCompletedEvent({ share_url: 'javascript:alert(1)' })),
    status: 400,
    says: ['share_url', 'http'],
  },
  { route: ZOOM, what: 'a topic over 1 024 characters', send: zoom(recordingCompletedEvent({ topic: LONG.slice(0, 1_025) })), status: 400, says: ['topic'] },
  {
    route: ZOOM,
    what: `${MANY} recording files`,
    send: zoom(withFiles(MANY)),
    status: 400,
    says: ['recording_files'],
  },
  // Operators: Momentum's bodies, checked strictly.
  {
    route: MANUAL_REMAP,
    what: 'U+0000 in the title',
    send: admin('/admin/meetings/remap', { ...REMAP, meetingDetails: { title: 'a\u0000' } }),
    status: 400,
    says: ['meetingDetails.title'],
  },
  {
    route: MANUAL_REMAP,
    what: 'an unknown field',
    send: admin('/admin/meetings/remap', { ...REMAP, meetingDetail: { title: 'x' } }),
    status: 400,
    says: ['meetingDetail'],
  },
  {
    route: MANUAL_REMAP,
    what: 'a 100 kB title',
    send: admin('/admin/meetings/remap', { ...REMAP, meetingDetails: { title: LONG } }),
    status: 400,
    says: ['meetingDetails.title'],
  },
  {
    route: MANUAL_IMPORT,
    what: 'a 100 kB title',
    send: admin('/admin/meetings/import', { meeting: { ...IMPORT.meeting, title: LONG } }),
    status: 400,
    says: ['meeting.title'],
  },
  {
    route: MANUAL_IMPORT,
    what: 'a javascript: recordingUrl',
    send: admin('/admin/meetings/import', { meeting: { ...IMPORT.meeting, recordingUrl: 'javascript:alert(1)' } }),
    status: 400,
    says: ['meeting.recordingUrl'],
  },
  {
    route: MANUAL_IMPORT,
    what: 'a data: callUrl',
    send: admin('/admin/meetings/import', { meeting: { ...IMPORT.meeting, callUrl: 'data:,x' } }),
    status: 400,
    says: ['meeting.callUrl'],
  },
  {
    route: MANUAL_IMPORT,
    what: 'a misspelt field (titel)',
    send: admin('/admin/meetings/import', { meeting: { ...IMPORT.meeting, titel: 'x' } }),
    status: 400,
    says: ['meeting.titel', 'unknown field'],
  },
  {
    route: MANUAL_IMPORT,
    what: `${MANY} attendees`,
    send: admin('/admin/meetings/import', { meeting: { ...IMPORT.meeting, attendees: people(MANY) } }),
    status: 400,
    says: ['meeting.attendees'],
  },
  {
    route: MANUAL_IMPORT,
    what: 'U+0000 in an attendee name',
    send: admin('/admin/meetings/import', { meeting: { ...IMPORT.meeting, attendees: [{ email: 'a@b.com', name: 'A\u0000' }] } }),
    status: 400,
    says: ['meeting.attendees.0.name'],
  },
];

/** One clean request per route, so the admin reads afterwards have rows (and detail pages) to show. */
export const CLEAN_REQUESTS: ReadonlyArray<{ route: string; send(url: string): Promise<Answer>; status: number }> = [
  { route: SF, send: soap(outboundMessage({ notifications: [eventNotification(7, { WhatId: '0068d0000101XyZAAU' })] })), status: 200 },
  { route: MEETING, send: signed({ ...TEAMS_MEETING, salesforce: { opportunityId: '0068d0000101XyZ' } }, 'msg_clean_1'), status: 202 },
  { route: REC, send: signed(RECORDING, 'msg_clean_2'), status: 202 },
  { route: ZOOM, send: zoom(recordingCompletedEvent({ uuid: ZOOM_UUIDS.plain })), status: 200 },
  { route: MANUAL_REMAP, send: admin('/admin/meetings/remap', REMAP), status: 202 },
  { route: MANUAL_IMPORT, send: admin('/admin/meetings/import', IMPORT), status: 202 },
];
