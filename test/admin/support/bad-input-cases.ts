import { randomBytes } from 'node:crypto';

/*
 * The bad-input table of bad-input.test.ts: for every admin write route, input the database would
 * refuse (or that must never be stored), each case named and tied to its route's operationId.
 */

export const remap = { source: { id: 'abc123', type: 'GOOGLE_CALENDAR' }, salesforceRecords: { opportunityId: '0065w000023STAmAAO' } };
const randomText = (length: number) => randomBytes(length).toString('base64').slice(0, length);
const deeplyNested = (depth: number) => `{"meeting":{"id":"m1","ext":${'['.repeat(depth)}${']'.repeat(depth)}}}`;

export interface Case {
  name: string;
  method: 'post' | 'put' | 'delete';
  path: string;
  /** An object is sent as JSON; a string is sent as it is, labelled application/json. */
  body?: unknown;
  /** The route it attacks, by its operationId in ADMIN_ROUTE_LIST. */
  route: string;
  status?: number;
}

const BAD_IDS: Array<[string, string]> = [
  ['an id beyond BIGINT', '99999999999999999999'],
  ['an id one past BIGINT', '9223372036854775808'],
  ['an id of 2^53', '9007199254740992'],
  ['an id in exponent notation', '1e3'],
  ['an id in hexadecimal', '0x10'],
  ['a negative id', '-1'],
  ['a fractional id', '1.5'],
  ['an id with a NUL', '1%00'],
  ['an id of 5000 digits', '9'.repeat(5000)],
];

const MEETING = '/admin/meetings/calendar%3Acalendar%3Ateams-1/pin';
const pin = { opportunityId: '0068d0000101XyZAAU', reason: 'the renewal, not the pilot' };

export const CASES: Case[] = [
  ...BAD_IDS.flatMap(([name, id]): Case[] => [
    { name: `reprocess: ${name}`, method: 'post', path: `/admin/events/${id}/reprocess`, route: 'reprocessEvent' },
    { name: `replay: ${name}`, method: 'post', path: `/admin/deliveries/${id}/replay`, route: 'replayDelivery' },
    { name: `cancel: ${name}`, method: 'post', path: `/admin/deliveries/${id}/cancel`, route: 'cancelDelivery' },
  ]),
  // The largest id there can be is a valid id: its delivery does not exist.
  {
    name: 'replay: the largest safe integer',
    method: 'post',
    path: `/admin/deliveries/${Number.MAX_SAFE_INTEGER}/replay`,
    route: 'replayDelivery',
    status: 404,
  },
  {
    name: 'reprocess: the largest safe integer',
    method: 'post',
    path: `/admin/events/${Number.MAX_SAFE_INTEGER}/reprocess`,
    route: 'reprocessEvent',
    status: 404,
  },

  {
    name: 'remap: NUL in source.id',
    method: 'post',
    path: '/admin/meetings/remap',
    body: { ...remap, source: { id: 'a\u0000b', type: 'ZOOM' } },
    route: 'manualRemap',
  },
  {
    name: 'remap: NUL in the title',
    method: 'post',
    path: '/admin/meetings/remap',
    body: { salesforceRecords: remap.salesforceRecords, meetingDetails: { title: 'Pricing\u0000review' } },
    route: 'manualRemap',
  },
  {
    name: 'remap: an unpaired surrogate in the title',
    method: 'post',
    path: '/admin/meetings/remap',
    body: '{"salesforceRecords":{"opportunityId":"0065w000023STAmAAO"},"meetingDetails":{"title":"\\ud800"}}',
    route: 'manualRemap',
  },
  {
    name: 'remap: NUL in a Salesforce id',
    method: 'post',
    path: '/admin/meetings/remap',
    body: { ...remap, salesforceRecords: { opportunityId: '0065w000023S\u0000AmAAO' } },
    route: 'manualRemap',
  },
  { name: 'remap: NUL in a key', method: 'post', path: '/admin/meetings/remap', body: { ...remap, ['x\u0000']: 1 }, route: 'manualRemap' },
  {
    name: 'remap: a source.id of 3000 random characters',
    method: 'post',
    path: '/admin/meetings/remap',
    body: { ...remap, source: { id: randomText(3000), type: 'ZOOM' } },
    route: 'manualRemap',
  },
  {
    name: 'remap: a title of 3000 random characters',
    method: 'post',
    path: '/admin/meetings/remap',
    body: { salesforceRecords: remap.salesforceRecords, meetingDetails: { title: randomText(3000) } },
    route: 'manualRemap',
  },
  {
    name: 'remap: a title of 1000 three-byte characters',
    method: 'post',
    path: '/admin/meetings/remap',
    body: { salesforceRecords: remap.salesforceRecords, meetingDetails: { title: '会'.repeat(1000) } },
    route: 'manualRemap',
  },
  {
    name: 'remap: a source.type of 500 characters',
    method: 'post',
    path: '/admin/meetings/remap',
    body: { ...remap, source: { id: 'abc', type: 'Z'.repeat(500) } },
    route: 'manualRemap',
  },
  {
    name: 'remap: a Salesforce id of 100 characters',
    method: 'post',
    path: '/admin/meetings/remap',
    body: { ...remap, salesforceRecords: { accountId: 'A'.repeat(100) } },
    route: 'manualRemap',
  },
  {
    name: 'remap: a momentumMeetingId of 2^64',
    method: 'post',
    path: '/admin/meetings/remap',
    body: '{"salesforceRecords":{"opportunityId":"0065w000023STAmAAO"},"meetingDetails":{"momentumMeetingId":18446744073709551616}}',
    route: 'manualRemap',
  },
  {
    name: 'remap: JSON nested 10 000 levels deep',
    method: 'post',
    path: '/admin/meetings/remap',
    body: `{"source":${'['.repeat(10_000)}${']'.repeat(10_000)}}`,
    route: 'manualRemap',
  },

  { name: 'import: NUL in meeting.id', method: 'post', path: '/admin/meetings/import', body: { meeting: { id: 'a\u0000b' } }, route: 'manualImport' },
  {
    name: 'import: NUL in a field the schema passes through',
    method: 'post',
    path: '/admin/meetings/import',
    body: { meeting: { id: 'm1', notes: { text: ['ok', '\u0000'] } } },
    route: 'manualImport',
  },
  { name: 'import: NUL in a key', method: 'post', path: '/admin/meetings/import', body: { meeting: { id: 'm1', ['k\u0000']: 1 } }, route: 'manualImport' },
  {
    name: 'import: a meeting.id of 3000 characters',
    method: 'post',
    path: '/admin/meetings/import',
    body: { meeting: { id: randomText(3000) } },
    route: 'manualImport',
  },
  {
    name: 'import: a Salesforce account id that is no id',
    method: 'post',
    path: '/admin/meetings/import',
    body: { meeting: { id: 'm1', salesforceAccountId: 'x'.repeat(300) } },
    route: 'manualImport',
  },
  { name: 'import: JSON nested 100 000 levels deep', method: 'post', path: '/admin/meetings/import', body: deeplyNested(100_000), route: 'manualImport' },
  {
    name: 'import: a javascript: recordingUrl',
    method: 'post',
    path: '/admin/meetings/import',
    body: { meeting: { id: 'm1', recordingUrl: 'javascript:alert(document.cookie)' } },
    route: 'manualImport',
  },
  {
    name: 'import: a data: callUrl',
    method: 'post',
    path: '/admin/meetings/import',
    body: { meeting: { id: 'm1', callUrl: 'data:,hi' } },
    route: 'manualImport',
  },

  {
    name: 'bulk replay: NUL in filter.meeting (dry run)',
    method: 'post',
    path: '/admin/deliveries/replay',
    body: { filter: { meeting: 'source:ZOOM:a\u0000b' } },
    route: 'bulkReplay',
  },
  {
    name: 'bulk replay: NUL in filter.meeting (for real)',
    method: 'post',
    path: '/admin/deliveries/replay',
    body: { filter: { meeting: 'source:ZOOM:a\u0000b' }, dryRun: false },
    route: 'bulkReplay',
  },
  {
    name: 'bulk replay: a filter.meeting of 5000 characters',
    method: 'post',
    path: '/admin/deliveries/replay',
    body: { filter: { meeting: 'x'.repeat(5000) }, dryRun: false },
    route: 'bulkReplay',
  },
  {
    name: 'bulk replay: a salesforceId of 100 characters',
    method: 'post',
    path: '/admin/deliveries/replay',
    body: { filter: { salesforceId: 'A'.repeat(100) }, dryRun: false },
    route: 'bulkReplay',
  },
  {
    name: 'bulk replay: a year beyond four digits',
    method: 'post',
    path: '/admin/deliveries/replay',
    body: { filter: { since: '+275760-09-13T00:00:00Z' }, dryRun: false },
    route: 'bulkReplay',
  },
  {
    name: 'bulk replay: NUL in a key of the filter',
    method: 'post',
    path: '/admin/deliveries/replay',
    body: { filter: { ['state\u0000']: 'dead' }, dryRun: false },
    route: 'bulkReplay',
  },

  {
    name: 'add calendar: NUL in calendarId',
    method: 'post',
    path: '/admin/calendars',
    body: { calendarId: 'ana\u0000@example.com' },
    route: 'addCalendar',
  },
  {
    name: 'add calendar: a calendarId of 300 characters',
    method: 'post',
    path: '/admin/calendars',
    body: { calendarId: `${'a'.repeat(300)}@example.com` },
    route: 'addCalendar',
  },
  { name: 'remove calendar: NUL in the path', method: 'delete', path: '/admin/calendars/ana%00%40example.com', route: 'removeCalendar' },
  {
    name: 'remove calendar: an unpaired surrogate in the path',
    method: 'delete',
    path: '/admin/calendars/%ED%A0%80%40example.com',
    route: 'removeCalendar',
  },
  {
    name: 'remove calendar: 5000 characters in the path',
    method: 'delete',
    path: `/admin/calendars/${'a'.repeat(5000)}%40example.com`,
    route: 'removeCalendar',
  },

  { name: 'pin: NUL in the meeting key', method: 'put', path: '/admin/meetings/a%00b/pin', body: pin, route: 'pinMeeting' },
  { name: 'pin: a meeting key of 5000 characters', method: 'put', path: `/admin/meetings/${'k'.repeat(5000)}/pin`, body: pin, route: 'pinMeeting' },
  { name: 'pin: no record id', method: 'put', path: MEETING, body: { reason: 'the renewal' }, route: 'pinMeeting' },
  { name: 'pin: no reason', method: 'put', path: MEETING, body: { opportunityId: pin.opportunityId }, route: 'pinMeeting' },
  { name: 'pin: a blank reason', method: 'put', path: MEETING, body: { ...pin, reason: '   ' }, route: 'pinMeeting' },
  { name: 'pin: a reason of 501 characters', method: 'put', path: MEETING, body: { ...pin, reason: 'r'.repeat(501) }, route: 'pinMeeting' },
  { name: 'pin: NUL in the reason', method: 'put', path: MEETING, body: { ...pin, reason: 'the\u0000renewal' }, route: 'pinMeeting' },
  { name: 'pin: an Account id as the opportunity', method: 'put', path: MEETING, body: { ...pin, opportunityId: '0018d0000101XyZAAU' }, route: 'pinMeeting' },
  {
    name: 'pin: an 18-character id whose checksum is wrong',
    method: 'put',
    path: MEETING,
    body: { ...pin, opportunityId: '0068d0000101XyZAAA' },
    route: 'pinMeeting',
  },
  { name: 'pin: a lead id of 100 characters', method: 'put', path: MEETING, body: { ...pin, leadId: `00Q${'a'.repeat(97)}` }, route: 'pinMeeting' },
  { name: 'pin: a field that is not an id', method: 'put', path: MEETING, body: { ...pin, contactId: '0038d0000101XyZAAU' }, route: 'pinMeeting' },
  {
    name: 'pin: a meeting no event has',
    method: 'put',
    path: '/admin/meetings/calendar%3Acalendar%3Anowhere/pin',
    body: pin,
    route: 'pinMeeting',
    status: 404,
  },
  { name: 'unpin: NUL in the meeting key', method: 'delete', path: '/admin/meetings/a%00b/pin', route: 'unpinMeeting' },
  { name: 'unpin: a meeting without a pin', method: 'delete', path: MEETING, route: 'unpinMeeting', status: 404 },
];
