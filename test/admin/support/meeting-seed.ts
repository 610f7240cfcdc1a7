import type { AttemptRecord, InboundEvent, Job, NewJob, NewMatchRecord, Store } from '../../../src/store/types.ts';

/**
 * Meetings as the bridge leaves them, made through the store's own API the way receivers and the
 * map-event job make them: an inbound event with its map-event job (keyed by its source record),
 * then that job's outcome (skipped, refused at mapping, or mapped to a delivery) with its match record.
 */

const OWNER = 'seed-mapper';

export interface SeededEvent {
  event: InboundEvent;
  meetingKey: string;
  mapJobId: number;
}

export async function receiveEvent(store: Store, source: string, meetingKey: string, parsedPayload: unknown, receivedAt = Date.now()): Promise<SeededEvent> {
  let mapJob: NewJob | undefined;
  const { created } = await store.ingest(
    { source, rawPayload: JSON.stringify(parsedPayload), receivedAt, events: [{ dedupeKey: `${meetingKey}#${receivedAt}`, parsedPayload }] },
    (event) => {
      mapJob = { kind: 'map-event', payload: { eventId: event.id }, serialKey: meetingKey, runAt: 0 };
      return [mapJob];
    },
  );
  const event = created[0]!;
  const [job] = await store.listJobs({ eventId: event.id, kinds: ['map-event'], limit: 1 });
  return { event, meetingKey, mapJobId: job!.id };
}

// Map-event jobs run at 0 and are claimed "at" time 1; deliveries wait an hour, so only a claim
// "two hours from now" takes them: each seeding step claims exactly the job it means to settle.
const LATER = () => Date.now() + 7_200_000;

async function claim(store: Store, id: number, now = 1): Promise<void> {
  const [claimed] = await store.claim({ owner: OWNER, limit: 1, leaseMs: 3_600_000, now });
  if (claimed?.id !== id) throw new Error(`seeding claimed job ${claimed?.id} instead of ${id}`);
}

const match = (seeded: SeededEvent, outcome: string, records: Record<string, string> = {}): NewMatchRecord => ({
  eventId: seeded.event.id,
  meetingKey: seeded.meetingKey,
  outcome,
  rule: outcome === 'matched' ? 'explicit_ids' : 'none',
  summary: `${outcome} by the seed`,
  record: { version: 1, outcome, records, candidates: Object.values(records).map((id) => ({ kind: 'opportunity', id, status: 'chosen', why: 'seeded' })) },
});

/** The mapping decided to send nothing: the event is skipped with the reason, its match record kept. */
export async function skipped(store: Store, seeded: SeededEvent, reason: string): Promise<void> {
  await claim(store, seeded.mapJobId);
  await store.finish({
    jobId: seeded.mapJobId,
    leaseOwner: OWNER,
    outcome: { state: 'skipped', reason },
    eventUpdate: { eventId: seeded.event.id, state: 'skipped', reason },
    matchRecord: match(seeded, 'none'),
  });
}

/** The mapper refused the event (an unmappable record): the event failed with the reason, no match record. */
export async function refused(store: Store, seeded: SeededEvent, reason: string): Promise<void> {
  await claim(store, seeded.mapJobId);
  await store.finish({
    jobId: seeded.mapJobId,
    leaseOwner: OWNER,
    outcome: { state: 'dead', reason },
    eventUpdate: { eventId: seeded.event.id, state: 'failed', reason },
  });
}

/** Mapped: the match record naming `records` and the delivery, made in one transaction; the delivery as stored. */
export async function mapped(store: Store, seeded: SeededEvent, delivery: NewJob, records: Record<string, string>): Promise<Job> {
  await claim(store, seeded.mapJobId);
  await store.finish({
    jobId: seeded.mapJobId,
    leaseOwner: OWNER,
    outcome: { state: 'succeeded' },
    eventUpdate: { eventId: seeded.event.id, state: 'mapped' },
    matchRecord: match(seeded, 'matched', records),
    enqueue: [{ ...delivery, eventId: seeded.event.id, runAt: Date.now() + 3_600_000 }],
  });
  const [job] = await store.listJobs({ eventId: seeded.event.id, kinds: [delivery.kind], limit: 1 });
  return job!;
}

/** The delivery ran: each attempt but the last retried, then it ended dead with the last. */
export async function diedAfter(store: Store, job: Job, attempts: readonly AttemptRecord[], reason = 'gave up'): Promise<Job> {
  for (const [index, attempt] of attempts.entries()) {
    await claim(store, job.id, LATER());
    const last = index === attempts.length - 1;
    await store.finish({
      jobId: job.id,
      leaseOwner: OWNER,
      outcome: last ? { state: 'dead', reason } : { state: 'retry', runAt: 0, error: 'retrying' },
      attempt,
    });
  }
  return (await store.getJob(job.id))!;
}

export const googleEvent = (eventId: string, fields: Record<string, unknown> = {}) => ({
  version: 1,
  origin: 'google',
  sourceType: 'GOOGLE_CALENDAR',
  eventId,
  start: '2026-03-02T15:00:00Z',
  attendees: [],
  ...fields,
});

export const zoomRecording = (uuid: string, fields: Record<string, unknown> = {}) => ({
  version: 1,
  origin: 'zoom',
  meetingId: uuid,
  zoomUuid: uuid,
  zoomMeetingId: '84512345678',
  recordingUrl: 'https://zoom.example/rec/1',
  attendees: [],
  ...fields,
});

export const salesforceEvent = (id: string, fields: Record<string, string> = {}) => ({
  version: 1,
  organizationId: '00D8d0000001XyZEAU',
  actionId: '04k8d0000000001AAA',
  notificationId: `04l8d00000${id.slice(-8)}`,
  sObjectType: 'Event',
  fields: { Id: id, ...fields },
});
