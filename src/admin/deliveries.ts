import { AppError } from '../core/errors.ts';
import type { Job, JobFilter } from '../store/types.ts';
import type { AdminStore } from './admin-store.ts';
import { decodeCursor, pageOf } from './cursor.ts';
import { deliveryAction } from './delivery-action.ts';
import { matchOf, meetingFacts } from './matches.ts';
import { meetingKeyOf } from './pins.ts';
import { deliveredOf, readbackView } from './readback-view.ts';
import { DELIVERY_KINDS, type DeliveryFilterInput, type DeliveryListQuery, PAGE_LIMIT_MAX } from './request-schemas.ts';
import type { DeliveryDetail } from './response-schemas.ts';
import { attemptView, deliverySummary, deliveryView, eventSummary, jobSummary } from './views.ts';

/** Deliveries are the jobs that call Momentum: remaps and imports (mapping jobs are not). */
export const isDelivery = (job: Job): boolean => (DELIVERY_KINDS as readonly string[]).includes(job.kind);

export function deliveryFilter(input: DeliveryFilterInput): JobFilter {
  return {
    kinds: input.kind === undefined ? DELIVERY_KINDS : [input.kind],
    ...(input.state === undefined ? {} : { states: [input.state] }),
    ...(input.since === undefined ? {} : { createdSince: input.since }),
    ...(input.until === undefined ? {} : { createdUntil: input.until }),
    ...(input.meeting === undefined ? {} : { coalesceKey: input.meeting }),
    // The first 15 characters are the id itself (the 18-character form only adds a checksum), so
    // this finds the record whichever form the request carries (docs/protocols.md §2, record ids).
    // The search index narrows (it folds case); the payload check keeps the id's case exact.
    ...(input.salesforceId === undefined ? {} : { textSearch: input.salesforceId.slice(0, 15), payloadContains: input.salesforceId.slice(0, 15) }),
  };
}

export async function listDeliveries(store: AdminStore, query: DeliveryListQuery) {
  const after = decodeCursor(query.cursor);
  const match = query.match === undefined ? {} : { matchOutcome: query.match };
  const filter = deliveryFilter(query);
  // With both, q searches and the id narrows by its exact text in the payload.
  const search = query.q === undefined ? {} : { textSearch: query.q };
  const rows = await store.listJobs({ ...filter, ...search, ...match, ...(after ? { after } : {}), limit: query.limit + 1 });
  const delivered = await deliveredOf(store, rows);
  return pageOf(
    rows,
    query.limit,
    (job) => ({ at: job.createdAt, id: job.id }),
    (job) => deliverySummary(job, delivered.get(job.id)),
  );
}

export async function loadDelivery(store: Pick<AdminStore, 'getJob'>, id: number): Promise<Job> {
  const job = await store.getJob(id);
  if (job === undefined || !isDelivery(job)) throw new AppError('not_found', `delivery ${id} does not exist`, { status: 404 });
  return job;
}

/** Everything an operator needs to judge one delivery: body, attempts, origin, the match record that made it, successor, replays, read-back. */
export async function deliveryDetail(store: AdminStore, id: number): Promise<DeliveryDetail> {
  const job = await loadDelivery(store, id);
  const [attempts, event, supersededBy, replayOf, replays, match, delivered, meetingKey] = await Promise.all([
    store.getAttempts(id),
    job.eventId === null ? undefined : store.getEvent(job.eventId),
    job.supersededBy === null ? undefined : store.getJob(job.supersededBy),
    job.replayOf === null ? undefined : store.getJob(job.replayOf),
    store.listJobs({ replayOf: id, order: 'oldest', limit: PAGE_LIMIT_MAX }),
    matchOf(store, job.eventId, job.createdAt),
    deliveredOf(store, [job]),
    job.eventId === null ? undefined : meetingKeyOf(store, job.eventId),
  ]);
  return {
    delivery: deliveryView(job),
    attempts: attempts.map(attemptView),
    event: event === undefined ? null : eventSummary(event),
    supersededBy: supersededBy === undefined ? null : jobSummary(supersededBy),
    replayOf: replayOf === undefined ? null : jobSummary(replayOf),
    replays: replays.map(jobSummary),
    match,
    readback: readbackView(delivered.get(id)),
    meetingKey: meetingKey ?? null,
    meetingTitle: meetingFacts(event).title ?? deliverySummary(job).title,
    action: deliveryAction(job, attempts),
  };
}
