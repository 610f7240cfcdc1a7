import {
  matchListQuerySchema,
  matchPageSchema,
  meetingByIdSchema,
  meetingDetailSchema,
  meetingIdParamsSchema,
  meetingParamsSchema,
  meetingSearchAnswerSchema,
  meetingSearchQuerySchema,
  pinAnswerSchema,
  pinBodySchema,
} from './meeting-schemas.ts';
import { emptyQuerySchema } from './request-schemas.ts';
import { defineRoute } from './route-spec.ts';

/** The "why this record?" routes: a meeting's page, the match queue, and an operator's pin (routes.ts lists them with the rest). */
export const MEETING_ROUTES = {
  searchMeetings: defineRoute({
    method: 'get',
    path: '/admin/meetings',
    operationId: 'searchMeetings',
    mutating: false,
    summary:
      'Meetings found by text anywhere they left it (inbound events, skipped and refused ones included, their match records, deliveries): title, attendee email, source id, iCalUID, Zoom uuid, Salesforce id',
    description:
      'Each meeting is a source record (its key opens GET /admin/meetings/:key) with its title, start, the sources of its meeting, last activity and counts. The newest matching events and deliveries are read through their search indexes; more: true when the text is in more meetings than answered. A manual delivery and an event of no source record have no meeting: GET /admin/deliveries?q= and GET /admin/events?q= find them.',
    query: meetingSearchQuerySchema,
    success: { status: 200, description: 'The meetings found, newest activity first', schema: meetingSearchAnswerSchema },
  }),
  getMeeting: defineRoute({
    method: 'get',
    path: '/admin/meetings/:key',
    operationId: 'getMeeting',
    mutating: false,
    summary:
      'One source of a meeting by its key: its title and start, its pin, its match records, its inbound events and their deliveries, newest first, all of them as one timeline, and the meeting it is part of with every source',
    description:
      "The key is a match record's meetingKey (the map-event job's serial key), URL-encoded. meetingId names the whole meeting (GET /admin/meetings/by-id/:id). 404 when no inbound event has the key.",
    params: meetingParamsSchema,
    query: emptyQuerySchema,
    success: { status: 200, description: 'The meeting', schema: meetingDetailSchema },
    errors: [404],
  }),
  getMeetingById: defineRoute({
    method: 'get',
    path: '/admin/meetings/by-id/:id',
    operationId: 'getMeetingById',
    mutating: false,
    summary:
      'One meeting across its sources (a Google event, an Outlook event, a Salesforce Event, a signed event, a Zoom recording of one call): every source, and the match records, events and deliveries of all, newest first',
    description:
      'The id is a meetingId (of a meeting page, a match record). The id of a meeting since joined into another answers with that one. 404 for an id that names no meeting.',
    params: meetingIdParamsSchema,
    query: emptyQuerySchema,
    success: { status: 200, description: 'The meeting', schema: meetingByIdSchema },
    errors: [404],
  }),
  listMatches: defineRoute({
    method: 'get',
    path: '/admin/matches',
    operationId: 'listMatches',
    mutating: false,
    summary: 'Meetings whose newest match record has an outcome, newest first (outcome=ambiguous: the queue an operator pins from)',
    query: matchListQuerySchema,
    success: { status: 200, description: 'A page of meetings, each with its newest match record', schema: matchPageSchema },
  }),
  pinMeeting: defineRoute({
    method: 'put',
    path: '/admin/meetings/:key/pin',
    operationId: 'pinMeeting',
    mutating: true,
    summary: "Pins the meeting's records (an operator's pick wins over every matching rule, now and at every later mapping) and maps its newest event again",
    description:
      'At least one of opportunityId (006…), accountId (001…), leadId (00Q…), each a 15- or 18-character Salesforce id of that kind, and a reason (1 to 500 characters). A pin replaces the one before. 404 (nothing stored) when no inbound event has the key.',
    params: meetingParamsSchema,
    query: emptyQuerySchema,
    body: pinBodySchema,
    success: { status: 202, description: 'The pin, stored, and the mapping job, queued', schema: pinAnswerSchema },
    errors: [404, 413, 415],
  }),
  unpinMeeting: defineRoute({
    method: 'delete',
    path: '/admin/meetings/:key/pin',
    operationId: 'unpinMeeting',
    mutating: true,
    summary: 'Clears the pin and maps the meeting’s newest event again by the rules',
    params: meetingParamsSchema,
    query: emptyQuerySchema,
    success: { status: 204, description: 'Cleared; the mapping job is queued' },
    errors: [404],
  }),
};
