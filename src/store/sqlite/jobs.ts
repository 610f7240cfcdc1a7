import { deliveredParams, INSERT_DELIVERED } from '../delivered-types.ts';
import { attemptParams, type Candidate, finishParams, finishWakes, pickClaimable } from '../job-rules.ts';
import { matchRecordParams } from '../match-types.ts';
import { isOlderState, meetingVersionOf, staleReason } from '../meeting-order.ts';
import { cursorAdvance } from '../pubsub-cursors.ts';
import { PubSubLeaseLostError } from '../pubsub-types.ts';
import { freeSlots } from '../rate-log.ts';
import { candidateFromRow, coalesceKeyOf, jobFromRow, meetingVersionFromRow, numOrNull } from '../row-mappers.ts';
import { SQL } from '../sql.ts';
import { boundKey, toJson } from '../store-values.ts';
import type { ClaimOptions, FinishJob, InboundEvent, IngestResult, Job, MeetingCancellation, NewInboundMessage, NewJob, RateState } from '../types.ts';
import { JOB_PRIORITY, logKeyOf, NUMBERED_KINDS } from '../types.ts';
import type { SqliteQueries } from './queries.ts';

/**
 * The SQLite engine's write operations. Each is synchronous and runs inside a group-commit batch
 * (its own SAVEPOINT), so a throw undoes exactly this call.
 */

export function enqueueJobs(q: SqliteQueries, jobs: readonly NewJob[], now: number): Job[] {
  const created = new Map<number, Job>();
  for (const job of jobs) {
    const key = job.coalesceKey === undefined ? null : boundKey(job.coalesceKey);
    const version = meetingVersionOf(job);
    const current = version && key !== null ? meetingVersionFromRow(q.get(SQL.getMeetingVersion, key)) : undefined;
    // Made from an older state than one already queued or sent: stored, never run, never replacing the newer.
    const staleFor = current !== undefined && version !== undefined && isOlderState(version, current) ? current.jobId : undefined;
    // The unique pending index allows one pending job per key: the old one steps aside first.
    const pending = key === null || staleFor !== undefined ? undefined : q.get(SQL.pendingOfKey, key);
    const replacedId = pending === undefined ? undefined : Number(pending.id);
    if (replacedId !== undefined) q.run(SQL.supersede, replacedId, now);
    const id = Number(
      q.insert(
        SQL.insertJob,
        ...insertParams(job, key, now),
        staleFor === undefined ? 'pending' : 'superseded',
        staleFor ?? null,
        staleFor === undefined ? null : staleReason(staleFor),
      ),
    );
    if (version !== undefined && key !== null && staleFor === undefined) q.run(SQL.putMeetingVersion, key, version.sourceVersion, version.eventId, id);
    if (replacedId !== undefined) {
      q.run(SQL.setSupersededBy, replacedId, id);
      const earlier = created.get(replacedId);
      if (earlier) Object.assign(earlier, { state: 'superseded', supersededBy: id });
    }
    // Only deliveries have a number: the ack path (map-event jobs) reads nothing back.
    const deliveryNo = NUMBERED_KINDS.includes(job.kind) ? numOrNull(q.get(SQL.deliveryNo, id)?.delivery_no) : null;
    created.set(id, { ...newJob(id, job, key, now, staleFor), deliveryNo });
  }
  return [...created.values()];
}

/** The row just inserted, built rather than read back (a read per job costs the ingest path). */
function newJob(id: number, job: NewJob, key: string | null, now: number, staleFor: number | undefined): Job {
  return {
    id,
    kind: job.kind,
    payload: job.payload,
    coalesceKey: key,
    state: staleFor === undefined ? 'pending' : 'superseded',
    attempts: 0,
    runAt: job.runAt ?? now,
    leaseOwner: null,
    leaseUntil: null,
    createdAt: now,
    updatedAt: now,
    eventId: job.eventId ?? null,
    supersededBy: staleFor ?? null,
    replayOf: job.replayOf ?? null,
    lastError: staleFor === undefined ? null : staleReason(staleFor),
    result: null,
    rateKey: job.rateKey ?? null,
    priority: job.priority ?? JOB_PRIORITY.live,
    serialKey: job.serialKey === undefined ? null : boundKey(job.serialKey),
    sourceVersion: job.sourceVersion ?? null,
    deliveryNo: null,
  };
}

/** $1…$11 of SQL.insertJob. */
function insertParams(job: NewJob, key: string | null, now: number) {
  return [
    job.kind,
    toJson(job.payload),
    key,
    job.runAt ?? now,
    now,
    job.eventId ?? null,
    job.replayOf ?? null,
    job.rateKey ?? null,
    job.priority ?? JOB_PRIORITY.live,
    job.serialKey === undefined ? null : boundKey(job.serialKey),
    job.sourceVersion ?? null,
  ] as const;
}

export function ingestMessage(
  q: SqliteQueries,
  message: NewInboundMessage,
  jobsFor: (event: InboundEvent) => NewJob[],
  now: number,
): IngestResult & { jobCount: number } {
  const receivedAt = message.receivedAt ?? now;
  const senderId = message.senderId ?? null;
  const messageId = Number(q.insert(SQL.insertMessage, message.source, senderId, message.rawPayload, receivedAt));
  const created: InboundEvent[] = [];
  const duplicates: string[] = [];
  for (const event of message.events) {
    const dedupeKey = boundKey(event.dedupeKey);
    const id = q.insert(SQL.insertEvent, messageId, message.source, senderId, dedupeKey, toJson(event.parsedPayload), receivedAt);
    if (id === undefined) duplicates.push(event.dedupeKey);
    else
      created.push({
        id,
        messageId,
        source: message.source,
        senderId,
        dedupeKey,
        parsedPayload: event.parsedPayload,
        receivedAt,
        state: 'received',
        stateReason: null,
      });
  }
  let jobCount = 0;
  for (const event of created) {
    const jobs = jobsFor(event).map((job) => ({ ...job, eventId: job.eventId ?? event.id }));
    jobCount += enqueueJobs(q, jobs, now).length;
  }
  if (message.cursor !== undefined) {
    const { sql, params, lease } = cursorAdvance(message.cursor);
    if (q.run(sql, ...params) === 0 && lease !== undefined) throw new PubSubLeaseLostError(lease);
  }
  return { created, duplicates, jobCount };
}

/** A budget as the pacer sees it at `now`. */
export function readRateState(q: SqliteQueries, key: string, requests: number, windowMs: number, now: number): RateState {
  const times = q.all(SQL.slotTimes, key, now - windowMs).map((row) => Number(row.at));
  const blocked = q.get(SQL.getRateLimit, key)?.blocked_until;
  const blockedUntil = blocked == null ? null : Number(blocked);
  const { nextFreeAt } = freeSlots(times, { requests, windowMs }, now, blockedUntil);
  return { used: times.length, nextFreeAt, blockedUntil: blockedUntil !== null && blockedUntil > now ? blockedUntil : null, at: now, times };
}

export function claimJobs(q: SqliteQueries, options: ClaimOptions & { now: number }): Job[] {
  const { owner, limit, leaseMs, now, pacing } = options;
  if (limit <= 0) return [];
  const candidates: Candidate[] = [];
  const slots = new Map<string, number>();
  // Call slots are real time, whatever clock decides what is due: the upstream counts in real time.
  const clock = Date.now();
  const callTimeouts = new Map(pacing?.budgets.map((budget) => [budget.key, budget.callTimeoutMs ?? 0]));
  const logKeys = new Map(pacing?.budgets.map((budget) => [budget.key, logKeyOf(budget)]));
  if (pacing === undefined) {
    candidates.push(...[...q.all(SQL.claimExpired, now, limit), ...q.all(SQL.claimPending, now, limit)].map(candidateFromRow));
  } else {
    candidates.push(...[...q.all(SQL.claimExpiredUnpaced, now, limit), ...q.all(SQL.claimPendingUnpaced, now, limit)].map(candidateFromRow));
    for (const budget of pacing.budgets) {
      let room = limit;
      if (budget.limit !== undefined) {
        const log = logKeyOf(budget);
        q.run(SQL.pruneSlots, log, clock - budget.limit.windowMs);
        const times = q.all(SQL.slotTimes, log, clock - budget.limit.windowMs).map((row) => Number(row.at));
        const blocked = q.get(SQL.getRateLimit, log)?.blocked_until;
        room = Math.min(pacing.max, freeSlots(times, budget.limit, clock, blocked == null ? null : Number(blocked)).free);
        slots.set(budget.key, room);
      }
      if (room > 0)
        candidates.push(...[...q.all(SQL.claimExpiredOf, now, room, budget.key), ...q.all(SQL.claimPendingOf, now, room, budget.key)].map(candidateFromRow));
    }
  }
  return pickClaimable(candidates, limit, slots, pacing?.max).flatMap((picked) => {
    if (q.run(SQL.markClaimed, picked.id, owner, now + leaseMs, now) === 0) return [];
    // Its call slot, taken in the claim's transaction: the budget is spent before the job can run.
    // Dated at the latest moment the call may reach the upstream until its answer settles it.
    if (picked.rateKey !== null && slots.has(picked.rateKey))
      q.run(SQL.insertSlot, logKeys.get(picked.rateKey) ?? picked.rateKey, picked.id, clock + (callTimeouts.get(picked.rateKey) ?? 0));
    const row = q.get(SQL.getJob, picked.id);
    return row === undefined ? [] : [jobFromRow(row)];
  });
}

export function finishJob(q: SqliteQueries, finish: FinishJob, now: number): { finished: boolean; wake: boolean } {
  const params = finishParams(finish.outcome, finish.attempt !== undefined);
  // Lease lost (expired and claimed by another worker, or released): change nothing.
  if (q.run(SQL.finish, finish.jobId, finish.leaseOwner, ...params, now) === 0) return { finished: false, wake: false };
  const row = q.get(SQL.jobKey, finish.jobId);
  if (finish.rateSlot === 'settle') q.run(SQL.settleSlot, finish.jobId, Date.now());
  else if (finish.rateSlot === 'refund') q.run(SQL.refundSlot, finish.jobId);
  if (finish.attempt) q.run(SQL.insertAttempt, finish.jobId, ...attemptParams(finish.attempt));
  if (finish.enqueue?.length) enqueueJobs(q, finish.enqueue, now);
  if (finish.eventUpdate) q.run(SQL.updateEvent, finish.eventUpdate.eventId, finish.eventUpdate.state, finish.eventUpdate.reason ?? null);
  if (finish.matchRecord) q.run(SQL.insertMatchRecord, ...(matchRecordParams(finish.matchRecord, finish.jobId, now) as Array<string | number | null>));
  for (const touch of finish.matchRecord?.touches ?? []) q.run(SQL.upsertMatchTouch, touch.kind, touch.value, boundKey(finish.matchRecord!.meetingKey), now);
  for (const mark of finish.watermarks ?? []) q.run(SQL.setWatermark, mark.object, mark.modstamp, now);
  if (finish.cancelPending) cancelMeeting(q, finish.cancelPending, finish.jobId, now);
  if (finish.delivered) q.run(INSERT_DELIVERED, ...deliveredParams(finish.delivered, finish.jobId, now));
  return { finished: true, wake: finishWakes(finish, coalesceKeyOf(row)) || finish.rateSlot === 'refund' };
}

/** FinishJob.cancelPending: the keys' pending jobs cancelled, the cancellation their newest state unless one is newer. */
function cancelMeeting(q: SqliteQueries, cancel: MeetingCancellation, jobId: number, now: number): void {
  for (const key of new Set(cancel.coalesceKeys.map(boundKey))) {
    q.run(SQL.cancelPendingOfKey, key, cancel.reason, now);
    const current = meetingVersionFromRow(q.get(SQL.getMeetingVersion, key));
    if (current === undefined || !isOlderState(cancel.version, current))
      q.run(SQL.putMeetingVersion, key, cancel.version.sourceVersion, cancel.version.eventId, jobId);
  }
}
