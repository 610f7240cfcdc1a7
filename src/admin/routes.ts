import { defineRoute } from './route-spec.ts';
import {
  bulkReplayBodySchema,
  deliveryListQuerySchema,
  emptyQuerySchema,
  eventListQuerySchema,
  idParamsSchema,
  manualImportBodySchema,
  manualRemapBodySchema,
  manualRemapQuerySchema,
} from './request-schemas.ts';
import {
  bulkReplayAnswerSchema,
  deliveryAnswerSchema,
  deliveryDetailSchema,
  eventDetailSchema,
  eventPageSchema,
  jobAnswerSchema,
  jobPageSchema,
  openApiDocumentSchema,
  statsSchema,
} from './response-schemas.ts';

/** Every admin API route. routes/admin.ts binds handlers to them; openapi.ts documents them. */
export const ADMIN_ROUTES = {
  listEvents: defineRoute({
    method: 'get', path: '/admin/events', operationId: 'listEvents', mutating: false,
    summary: 'Inbound events, newest first',
    query: eventListQuerySchema,
    success: { status: 200, description: 'A page of events', schema: eventPageSchema },
  }),
  getEvent: defineRoute({
    method: 'get', path: '/admin/events/:id', operationId: 'getEvent', mutating: false,
    summary: 'One inbound event with the raw payload of its message and the jobs it produced',
    params: idParamsSchema, query: emptyQuerySchema,
    success: { status: 200, description: 'The event', schema: eventDetailSchema },
    errors: [404],
  }),
  reprocessEvent: defineRoute({
    method: 'post', path: '/admin/events/:id/reprocess', operationId: 'reprocessEvent', mutating: true,
    summary: "Runs mapping again for the event with today's rules (a new map-event job)",
    params: idParamsSchema, query: emptyQuerySchema,
    success: { status: 202, description: 'The mapping job, queued', schema: jobAnswerSchema },
    errors: [404],
  }),
  listDeliveries: defineRoute({
    method: 'get', path: '/admin/deliveries', operationId: 'listDeliveries', mutating: false,
    summary: 'Remap and import deliveries, newest first',
    query: deliveryListQuerySchema,
    success: { status: 200, description: 'A page of deliveries', schema: jobPageSchema },
  }),
  getDelivery: defineRoute({
    method: 'get', path: '/admin/deliveries/:id', operationId: 'getDelivery', mutating: false,
    summary: 'One delivery: request and flags, every attempt, its inbound event, what superseded it, its replays',
    params: idParamsSchema, query: emptyQuerySchema,
    success: { status: 200, description: 'The delivery', schema: deliveryDetailSchema },
    errors: [404],
  }),
  replayDelivery: defineRoute({
    method: 'post', path: '/admin/deliveries/:id/replay', operationId: 'replayDelivery', mutating: true,
    summary: 'A new delivery with the same request, linked to this one; always sent, even if unchanged',
    description: 'Allowed from dead, succeeded, cancelled and skipped; pending, running or superseded answer 409 not_replayable. While a replay of the delivery is still pending or running, 409 replay_in_progress names it (details.replayId); once it has ended the delivery may be replayed again.',
    params: idParamsSchema, query: emptyQuerySchema,
    success: { status: 202, description: 'The replay, queued', schema: deliveryAnswerSchema },
    errors: [404, 409],
  }),
  cancelDelivery: defineRoute({
    method: 'post', path: '/admin/deliveries/:id/cancel', operationId: 'cancelDelivery', mutating: true,
    summary: 'Cancels a pending delivery',
    params: idParamsSchema, query: emptyQuerySchema,
    success: { status: 200, description: 'The cancelled delivery', schema: deliveryAnswerSchema },
    errors: [404, 409],
  }),
  bulkReplay: defineRoute({
    method: 'post', path: '/admin/deliveries/replay', operationId: 'bulkReplay', mutating: true,
    summary: 'Replays every delivery a filter selects (default: dead, not yet replayed); dryRun only counts',
    description: 'At most ADMIN_BULK_MAX per run, oldest first; run again for the rest. Each delivery is replayed at most once however many runs overlap (with includeReplayed: not while its last replay is pending or running); replayed counts the replays this run created.',
    query: emptyQuerySchema, body: bulkReplayBodySchema,
    success: { status: 200, description: 'What was (or would be) replayed', schema: bulkReplayAnswerSchema },
    errors: [413, 415],
  }),
  manualRemap: defineRoute({
    method: 'post', path: '/admin/meetings/remap', operationId: 'manualRemap', mutating: true,
    summary: "A manual remap: Momentum's own request body, the flags as query parameters (as Momentum takes them)",
    query: manualRemapQuerySchema, body: manualRemapBodySchema,
    success: { status: 202, description: 'The delivery, queued', schema: deliveryAnswerSchema },
    errors: [413, 415],
  }),
  manualImport: defineRoute({
    method: 'post', path: '/admin/meetings/import', operationId: 'manualImport', mutating: true,
    summary: "A manual import: Momentum's user-provided-meeting body ({meeting, processImportedMeeting})",
    query: emptyQuerySchema, body: manualImportBodySchema,
    success: { status: 202, description: 'The delivery, queued', schema: deliveryAnswerSchema },
    errors: [413, 415],
  }),
  stats: defineRoute({
    method: 'get', path: '/admin/stats', operationId: 'getStats', mutating: false,
    summary: 'Counts by kind and state, oldest pending, dead in the last 24 h, the Momentum rate-limit bucket',
    query: emptyQuerySchema,
    success: { status: 200, description: 'The stats', schema: statsSchema },
  }),
  openApi: defineRoute({
    method: 'get', path: '/admin/openapi.json', operationId: 'getOpenApi', mutating: false,
    summary: 'This document',
    query: emptyQuerySchema,
    success: { status: 200, description: 'OpenAPI 3.1', schema: openApiDocumentSchema },
  }),
};

export const ADMIN_ROUTE_LIST = Object.values(ADMIN_ROUTES);
