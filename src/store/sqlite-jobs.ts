import { attemptParams, finishParams, finishWakes, pickClaimable } from './job-rules.ts';
import { candidateFromRow, coalesceKeyOf, jobFromRow } from './row-mappers.ts';
import { SQL } from './sql.ts';
import type { SqliteQueries } from './sqlite-queries.ts';
import { toJson } from './store-values.ts';
import type { ClaimOptions, FinishJob, InboundEvent, IngestResult, Job, NewInboundMessage, NewJob } from './types.ts';

/**
 * The SQLite engine's write operations. Each is synchronous and runs inside a group-commit batch
 * (its own SAVEPOINT), so a throw undoes exactly this call.
 */

function newJob(id: number, job: NewJob, now: number): Job {
  return {
    id,
    kind: job.kind,
    payload: job.payload,
    coalesceKey: job.coalesceKey ?? null,
    state: 'pending',
    attempts: 0,
    runAt: job.runAt ?? now,
    leaseOwner: null,
    leaseUntil: null,
    createdAt: now,
    updatedAt: now,
    eventId: job.eventId ?? null,
    supersededBy: null,
    replayOf: job.replayOf ?? null,
    lastError: null,
    result: null,
  };
}

export function enqueueJobs(q: SqliteQueries, jobs: readonly NewJob[], now: number): Job[] {
  const created = new Map<number, Job>();
  for (const job of jobs) {
    const key = job.coalesceKey ?? null;
    // The unique pending index allows one pending job per key: the old one steps aside first.
    const pending = key === null ? undefined : q.get(SQL.pendingOfKey, key);
    const replacedId = pending === undefined ? undefined : Number(pending.id);
    if (replacedId !== undefined) q.run(SQL.supersede, replacedId, now);
    const id = Number(q.insert(SQL.insertJob, job.kind, toJson(job.payload), key, job.runAt ?? now, now, job.eventId ?? null, job.replayOf ?? null));
    if (replacedId !== undefined) {
      q.run(SQL.setSupersededBy, replacedId, id);
      const earlier = created.get(replacedId);
      if (earlier) Object.assign(earlier, { state: 'superseded', supersededBy: id });
    }
    created.set(id, newJob(id, job, now));
  }
  return [...created.values()];
}

export function ingestMessage(q: SqliteQueries, message: NewInboundMessage, jobsFor: (event: InboundEvent) => NewJob[], now: number): IngestResult & { jobCount: number } {
  const receivedAt = message.receivedAt ?? now;
  const senderId = message.senderId ?? null;
  const messageId = Number(q.insert(SQL.insertMessage, message.source, senderId, message.rawPayload, receivedAt));
  const created: InboundEvent[] = [];
  const duplicates: string[] = [];
  for (const event of message.events) {
    const id = q.insert(SQL.insertEvent, messageId, message.source, senderId, event.dedupeKey, toJson(event.parsedPayload), receivedAt);
    if (id === undefined) duplicates.push(event.dedupeKey);
    else created.push({ id, messageId, source: message.source, senderId, dedupeKey: event.dedupeKey, parsedPayload: event.parsedPayload, receivedAt, state: 'received', stateReason: null });
  }
  let jobCount = 0;
  for (const event of created) {
    const jobs = jobsFor(event).map((job) => ({ ...job, eventId: job.eventId ?? event.id }));
    jobCount += enqueueJobs(q, jobs, now).length;
  }
  return { created, duplicates, jobCount };
}


export function claimJobs(q: SqliteQueries, options: ClaimOptions & { now: number }): Job[] {
  const { owner, limit, leaseMs, now } = options;
  if (limit <= 0) return [];
  const candidates = [...q.all(SQL.claimExpired, now, limit), ...q.all(SQL.claimPending, now, limit)].map(candidateFromRow);
  return pickClaimable(candidates, limit).flatMap((picked) => {
    if (q.run(SQL.markClaimed, picked.id, owner, now + leaseMs, now) === 0) return [];
    const row = q.get(SQL.getJob, picked.id);
    return row === undefined ? [] : [jobFromRow(row)];
  });
}

export function finishJob(q: SqliteQueries, finish: FinishJob, now: number): { finished: boolean; wake: boolean } {
  const params = finishParams(finish.outcome, finish.attempt !== undefined);
  // Lease lost (expired and claimed by another worker, or released): change nothing.
  if (q.run(SQL.finish, finish.jobId, finish.leaseOwner, ...params, now) === 0) return { finished: false, wake: false };
  const row = q.get(SQL.jobKey, finish.jobId);
  if (finish.attempt) q.run(SQL.insertAttempt, finish.jobId, ...attemptParams(finish.attempt));
  if (finish.enqueue?.length) enqueueJobs(q, finish.enqueue, now);
  if (finish.eventUpdate) q.run(SQL.updateEvent, finish.eventUpdate.eventId, finish.eventUpdate.state, finish.eventUpdate.reason ?? null);
  return { finished: true, wake: finishWakes(finish, coalesceKeyOf(row)) };
}
