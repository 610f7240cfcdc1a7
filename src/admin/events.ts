import { AppError } from '../core/errors.ts';
import { mapEventKind } from '../mapping/map-event-job.ts';
import type { InboundEvent, Job } from '../store/types.ts';
import type { AdminStore } from './admin-store.ts';
import { decodeCursor, pageOf } from './cursor.ts';
import { matchOf } from './matches.ts';
import { meetingKeyOf } from './pins.ts';
import { type EventListQueryInput, PAGE_LIMIT_MAX } from './request-schemas.ts';
import type { EventDetail } from './response-schemas.ts';
import { eventSummary, jobSummary, messageView } from './views.ts';

export async function listInboundEvents(store: AdminStore, query: EventListQueryInput) {
  const after = decodeCursor(query.cursor);
  const rows = await store.listEvents({
    ...(query.source === undefined ? {} : { sources: [query.source] }),
    ...(query.state === undefined ? {} : { states: [query.state] }),
    ...(query.since === undefined ? {} : { receivedSince: query.since }),
    ...(query.until === undefined ? {} : { receivedUntil: query.until }),
    ...(query.match === undefined ? {} : { matchOutcome: query.match }),
    ...(query.q === undefined ? {} : { textSearch: query.q }),
    ...(after ? { after } : {}),
    limit: query.limit + 1,
  });
  return pageOf(rows, query.limit, (event) => ({ at: event.receivedAt, id: event.id }), eventSummary);
}

async function loadEvent(store: AdminStore, id: number): Promise<InboundEvent> {
  const event = await store.getEvent(id);
  if (event === undefined) throw new AppError('not_found', `inbound event ${id} does not exist`, { status: 404 });
  return event;
}

/** The event, the message it came in (raw, as received), every job it produced and its newest match record. */
export async function inboundEventDetail(store: AdminStore, id: number): Promise<EventDetail> {
  const event = await loadEvent(store, id);
  const [message, jobs, match] = await Promise.all([
    store.getMessage(event.messageId),
    store.listJobs({ eventId: id, order: 'oldest', limit: PAGE_LIMIT_MAX }),
    matchOf(store, id),
  ]);
  if (message === undefined) throw new Error(`inbound message ${event.messageId} of event ${id} is missing`);
  return { event: { ...eventSummary(event), parsedPayload: event.parsedPayload }, message: messageView(message), jobs: jobs.map(jobSummary), match };
}

/**
 * Runs mapping again with today's rules: a new map-event job for the stored event, under the
 * serial key its first mapping had, so it keeps its meeting's pin and order and stores its match record.
 */
export async function reprocessEvent(store: AdminStore, id: number): Promise<Job> {
  await loadEvent(store, id);
  const serialKey = await meetingKeyOf(store, id);
  const [job] = await store.enqueue([mapEventKind.job({ eventId: id }, { eventId: id, ...(serialKey === undefined ? {} : { serialKey }) })]);
  if (job === undefined) throw new Error(`enqueueing the reprocessing of event ${id} returned no job`);
  return job;
}
