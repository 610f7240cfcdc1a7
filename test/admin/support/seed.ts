import type { AttemptRecord, InboundEvent, Job, JobOutcome, NewJob, Store } from '../../../src/store/types.ts';

/** Rows for admin tests, made through the store's own API (as the routes and the worker make them). */

export const remapPayload = (meetingId: string, opportunityId = '0065w000023STAmAAO') => ({
  request: { source: { id: meetingId, type: 'GOOGLE_CALENDAR' }, salesforceRecords: { opportunityId } },
  flags: { triggerSummary: false, triggerAiSignals: false },
});

export const remapJob = (meetingId: string, extra: Partial<NewJob> = {}): NewJob => ({
  kind: 'remap',
  payload: remapPayload(meetingId),
  coalesceKey: `source:GOOGLE_CALENDAR:${meetingId}`,
  ...extra,
});

export async function storeEvent(store: Store, options: { source?: string; rawPayload?: string; key: string; receivedAt?: number }): Promise<InboundEvent> {
  const { created } = await store.ingest(
    {
      source: options.source ?? 'salesforce',
      senderId: '00D8d0000001XyZEAU',
      rawPayload: options.rawPayload ?? `<soapenv:Envelope><Id>${options.key}</Id></soapenv:Envelope>`,
      ...(options.receivedAt === undefined ? {} : { receivedAt: options.receivedAt }),
      events: [{ dedupeKey: options.key, parsedPayload: { id: options.key, sObjectType: 'Event', fields: { Subject: 'Demo' } } }],
    },
    () => [],
  );
  if (created[0] === undefined) throw new Error(`event ${options.key} was a duplicate`);
  return created[0];
}

// Seeded jobs run at time 0 and are claimed "at" time 1, so a claim never takes a job enqueued
// at the real current time; the lease still ends an hour from now, so no worker takes it over.
const OWNER = 'seed-worker';
const leaseMs = () => Date.now() + 3_600_000;

async function claimOne(store: Store, id: number): Promise<void> {
  const [claimed] = await store.claim({ owner: OWNER, limit: 1, leaseMs: leaseMs(), now: 1 });
  if (claimed?.id !== id) throw new Error(`seeding claimed job ${claimed?.id} instead of ${id}`);
}

/** A job that ran: one attempt per entry of `failures` (each retried), then `outcome` with `last`. */
export async function settledJob(
  store: Store,
  job: NewJob,
  outcome: Exclude<JobOutcome, { state: 'retry' | 'deferred' }>,
  attempts: { failures?: AttemptRecord[]; last?: AttemptRecord } = {},
): Promise<Job> {
  const [created] = await store.enqueue([{ ...job, runAt: 0 }]);
  if (created === undefined) throw new Error('enqueue returned nothing');
  for (const failure of attempts.failures ?? []) {
    await claimOne(store, created.id);
    await store.finish({
      jobId: created.id,
      leaseOwner: OWNER,
      outcome: { state: 'retry', runAt: 0, error: failure.responseExcerpt ?? 'failed' },
      attempt: failure,
    });
  }
  await claimOne(store, created.id);
  await store.finish({ jobId: created.id, leaseOwner: OWNER, outcome, ...(attempts.last ? { attempt: attempts.last } : {}) });
  const settled = await store.getJob(created.id);
  if (settled === undefined) throw new Error('settled job vanished');
  return settled;
}

export const deadRemap = (store: Store, meetingId: string, extra: Partial<NewJob> = {}) =>
  settledJob(
    store,
    remapJob(meetingId, extra),
    { state: 'dead', reason: '503 from Momentum after 3 attempts' },
    {
      failures: [
        {
          startedAt: Date.now() - 2000,
          durationMs: 40,
          status: 503,
          errorClass: 'http_5xx',
          responseExcerpt: 'upstream unavailable',
          upstreamRequestId: 'req-a',
        },
      ],
      last: {
        startedAt: Date.now() - 1000,
        durationMs: 35,
        status: 503,
        errorClass: 'http_5xx',
        responseExcerpt: 'upstream unavailable',
        upstreamRequestId: 'req-b',
      },
    },
  );

export async function runningJob(store: Store, job: NewJob): Promise<Job> {
  const [created] = await store.enqueue([{ ...job, runAt: 0 }]);
  await claimOne(store, created!.id);
  return (await store.getJob(created!.id))!;
}

export async function pendingJob(store: Store, job: NewJob): Promise<Job> {
  // Far in the future, so no seeding claim (at time 1) and no test worker picks it up.
  const [created] = await store.enqueue([{ ...job, runAt: Date.now() + 3_600_000 }]);
  return created!;
}

/** One dead remap per meeting, made in a few store calls (enqueue, one claim, the outcomes) for tests needing hundreds. */
export async function deadRemaps(store: Store, meetingIds: readonly string[]): Promise<Job[]> {
  const created = await store.enqueue(meetingIds.map((meetingId) => ({ ...remapJob(meetingId), runAt: 0 })));
  const claimed = await store.claim({ owner: OWNER, limit: created.length, leaseMs: leaseMs(), now: 1 });
  if (claimed.length !== created.length) throw new Error(`seeding claimed ${claimed.length} of ${created.length} jobs`);
  await Promise.all(
    claimed.map((job) => store.finish({ jobId: job.id, leaseOwner: OWNER, outcome: { state: 'dead', reason: '503 from Momentum after 3 attempts' } })),
  );
  return Promise.all(created.map(async (job) => (await store.getJob(job.id))!));
}
