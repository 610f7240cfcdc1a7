import { deliveredParams, INSERT_DELIVERED } from '../delivered-types.ts';
import { attemptParams, type Candidate, finishParams, finishWakes, keysOf, pickClaimable } from '../job-rules.ts';
import { matchRecordParams } from '../match-types.ts';
import { isOlderState, meetingVersionOf, staleReason } from '../meeting-order.ts';
import { cursorAdvance } from '../pubsub-cursors.ts';
import { PubSubLeaseLostError } from '../pubsub-types.ts';
import { freeSlots } from '../rate-log.ts';
import { candidateFromRow, coalesceKeyOf, jobFromRow, meetingVersionFromRow, type Row } from '../row-mappers.ts';
import { SQL } from '../sql.ts';
import { boundKey, toJson } from '../store-values.ts';
import type { ClaimOptions, FinishJob, InboundEvent, IngestResult, Job, MeetingCancellation, NewInboundMessage, NewJob, RateState } from '../types.ts';
import { JOB_PRIORITY, logKeyOf } from '../types.ts';
import type { Client } from './pool.ts';
import { claimCandidatesPaced, PG } from './sql.ts';

/** The PostgreSQL engine's write operations, each run inside a transaction by store.ts. */

const rows = async (client: Client, sql: string, params: unknown[]): Promise<Row[]> => (await client.query(sql, params)).rows as Row[];

/** Guards concurrent enqueues of one key, so jobs_pending_key never throws (keys arrive sorted). */
export async function lockKeys(client: Client, keys: string[]): Promise<void> {
  if (keys.length > 0) await client.query(PG.lockKeys, [keys]);
}

/**
 * Inserts jobs with coalescing, set-based. Within the batch a later job of a key supersedes the
 * earlier one; the key's job already pending is superseded by the batch's first job of that key,
 * exactly as if the jobs had been enqueued one by one. A job made from an older state of its
 * meeting than one already queued or sent (meeting-order.ts) is stored superseded and replaces
 * nothing. Callers hold the key locks.
 */
export async function enqueueJobs(client: Client, input: readonly NewJob[], now: number): Promise<Job[]> {
  if (input.length === 0) return [];
  const jobs = input.map((job) => ({
    ...job,
    ...(job.coalesceKey === undefined ? {} : { coalesceKey: boundKey(job.coalesceKey) }),
    ...(job.serialKey === undefined ? {} : { serialKey: boundKey(job.serialKey) }),
  }));
  const ids = (await rows(client, PG.nextJobIds, [jobs.length])).map((row) => Number(row.id));
  const staleFor = await staleJobs(client, jobs, ids);
  const supersededBy: Array<number | null> = jobs.map((_, index) => staleFor[index] ?? null);
  const firstOfKey = new Map<string, number>();
  const previousOfKey = new Map<string, number>();
  jobs.forEach((job, index) => {
    if (job.coalesceKey === undefined || staleFor[index] !== null) return;
    const previous = previousOfKey.get(job.coalesceKey);
    if (previous === undefined) firstOfKey.set(job.coalesceKey, ids[index] as number);
    else supersededBy[previous] = ids[index] as number;
    previousOfKey.set(job.coalesceKey, index);
  });
  if (firstOfKey.size > 0) await client.query(PG.supersedePending, [[...firstOfKey.keys()], [...firstOfKey.values()], now]);
  const inserted = await rows(client, PG.insertJobs, [
    ids,
    jobs.map((job) => job.kind),
    jobs.map((job) => toJson(job.payload)),
    jobs.map((job) => job.coalesceKey ?? null),
    supersededBy.map((next) => (next === null ? 'pending' : 'superseded')),
    jobs.map((job) => job.runAt ?? now),
    jobs.map((job) => job.eventId ?? null),
    supersededBy,
    jobs.map((job) => job.replayOf ?? null),
    now,
    jobs.map((job) => job.rateKey ?? null),
    jobs.map((job) => job.priority ?? JOB_PRIORITY.live),
    jobs.map((job) => job.serialKey ?? null),
    jobs.map((job) => job.sourceVersion ?? null),
    staleFor.map((newer) => (newer === null ? null : staleReason(newer))),
  ]);
  const byId = new Map(inserted.map((row) => [Number(row.id), jobFromRow(row)]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * Per job, the job carrying a newer state of its meeting (then this one is stale), else null; and
 * the newest state per key is recorded for the jobs that are not stale, in batch order.
 */
async function staleJobs(client: Client, jobs: readonly NewJob[], ids: readonly number[]): Promise<Array<number | null>> {
  const versions = jobs.map(meetingVersionOf);
  const keys = [...new Set(jobs.flatMap((job, index) => (versions[index] && job.coalesceKey !== undefined ? [job.coalesceKey] : [])))];
  if (keys.length === 0) return jobs.map(() => null);
  const newest = new Map((await rows(client, PG.meetingVersions, [keys])).map((row) => [String(row.coalesce_key), meetingVersionFromRow(row)!]));
  const stale = jobs.map((job, index) => {
    const version = versions[index];
    if (version === undefined || job.coalesceKey === undefined) return null;
    const current = newest.get(job.coalesceKey);
    if (current !== undefined && isOlderState(version, current)) return current.jobId;
    newest.set(job.coalesceKey, { ...version, jobId: ids[index] as number });
    return null;
  });
  const updates = [...newest.entries()].filter(([, version]) => ids.includes(version.jobId));
  if (updates.length > 0) {
    await client.query(PG.putMeetingVersions, [
      updates.map(([key]) => key),
      updates.map(([, version]) => version.sourceVersion),
      updates.map(([, version]) => version.eventId),
      updates.map(([, version]) => version.jobId),
    ]);
  }
  return stale;
}

export async function ingestMessage(
  client: Client,
  message: NewInboundMessage,
  jobsFor: (event: InboundEvent) => NewJob[],
  now: number,
): Promise<IngestResult & { jobCount: number }> {
  const receivedAt = message.receivedAt ?? now;
  const senderId = message.senderId ?? null;
  const [messageRow] = await rows(client, `${SQL.insertMessage} RETURNING id`, [message.source, senderId, message.rawPayload, receivedAt]);
  const messageId = Number(messageRow?.id);
  // A key repeated inside one message is a duplicate of its first occurrence.
  const seen = new Set<string>();
  const bounded = message.events.map((event) => ({ ...event, dedupeKey: boundKey(event.dedupeKey) }));
  const firsts = bounded.filter((event) => !seen.has(event.dedupeKey) && seen.add(event.dedupeKey));
  const insertedIds = new Map(
    (
      await rows(client, PG.insertEvents, [
        messageId,
        message.source,
        senderId,
        firsts.map((e) => e.dedupeKey),
        firsts.map((e) => toJson(e.parsedPayload)),
        receivedAt,
      ])
    ).map((row) => [String(row.dedupe_key), Number(row.id)]),
  );
  const created: InboundEvent[] = [];
  const duplicates: string[] = [];
  for (const [index, event] of bounded.entries()) {
    const id = insertedIds.get(event.dedupeKey);
    // Deleting marks the key used: a second occurrence in this message is a duplicate.
    if (id === undefined) duplicates.push(message.events[index]?.dedupeKey ?? event.dedupeKey);
    else {
      insertedIds.delete(event.dedupeKey);
      created.push({
        id,
        messageId,
        source: message.source,
        senderId,
        dedupeKey: event.dedupeKey,
        parsedPayload: event.parsedPayload,
        receivedAt,
        state: 'received',
        stateReason: null,
      });
    }
  }
  const jobs = created.flatMap((event) => jobsFor(event).map((job) => ({ ...job, eventId: job.eventId ?? event.id })));
  await lockKeys(client, keysOf(jobs));
  await enqueueJobs(client, jobs, now);
  if (message.cursor !== undefined) {
    const { sql, params, lease } = cursorAdvance(message.cursor);
    if ((await client.query(sql, params)).rowCount === 0 && lease !== undefined) throw new PubSubLeaseLostError(lease);
  }
  return { created, duplicates, jobCount: jobs.length };
}

export async function claimJobs(client: Client, options: ClaimOptions & { now: number }): Promise<Job[]> {
  const { owner, limit, leaseMs, now, pacing } = options;
  if (limit <= 0) return [];
  await client.query(PG.lockClaim);
  const candidates: Candidate[] = [];
  const slots = new Map<string, number>();
  let clock = now;
  if (pacing === undefined) {
    candidates.push(...(await rows(client, PG.claimCandidatesAll, [now, limit])).map(candidateFromRow));
  } else {
    const { budgets } = pacing;
    const limits = budgets.map((budget) => (budget.limit === undefined ? limit : Math.max(0, Math.min(pacing.max, limit))));
    const params = [now, limit, ...budgets.flatMap((budget, index) => [budget.key, limits[index]])];
    candidates.push(...(await rows(client, claimCandidatesPaced(budgets.length), params)).map(candidateFromRow));
    for (const budget of budgets) {
      // The budget is read only when it matters: a claim of unpaced work (mapping) costs no pacing statement.
      if (budget.limit === undefined || !candidates.some((candidate) => candidate.rateKey === budget.key)) continue;
      // After the claim lock: every instance's claims take slots one after another, on one clock.
      const [window] = await rows(client, PG.rateWindow, [logKeyOf(budget), budget.limit.windowMs]);
      clock = Number(window?.now);
      const times = ((window?.times ?? []) as unknown[]).map(Number);
      const blocked = window?.blocked_until;
      slots.set(budget.key, Math.min(pacing.max, freeSlots(times, budget.limit, clock, blocked == null ? null : Number(blocked)).free));
    }
  }
  const picked = pickClaimable(candidates, limit, slots, pacing?.max);
  if (picked.length === 0) return [];
  const claimed = await rows(client, PG.markClaimed, [picked.map((job) => job.id), owner, now + leaseMs, now]);
  // Each paced job's call slot, in the claim's transaction: the budget is spent before the job can run.
  // Dated at the latest moment the call may reach the upstream until its answer settles it.
  for (const key of slots.keys()) {
    const ofKey = picked.filter((job) => job.rateKey === key).map((job) => job.id);
    const budget = pacing?.budgets.find((candidate) => candidate.key === key);
    if (ofKey.length > 0) await client.query(PG.insertSlots, [budget ? logKeyOf(budget) : key, ofKey, clock + (budget?.callTimeoutMs ?? 0)]);
  }
  const byId = new Map(claimed.map((row) => [Number(row.id), jobFromRow(row)]));
  return picked.flatMap((job) => byId.get(job.id) ?? []);
}

/** A budget as the pacer sees it now, on the database's clock. */
export async function readRateState(client: Pick<Client, 'query'>, key: string, requests: number, windowMs: number): Promise<RateState> {
  const clock = Number((await client.query(PG.clock)).rows[0]?.now);
  const times = ((await client.query(SQL.slotTimes, [key, clock - windowMs])).rows as Row[]).map((row) => Number(row.at));
  const blocked = ((await client.query(SQL.getRateLimit, [key])).rows as Row[])[0]?.blocked_until;
  const blockedUntil = blocked == null ? null : Number(blocked);
  const { nextFreeAt } = freeSlots(times, { requests, windowMs }, clock, blockedUntil);
  return { used: times.length, nextFreeAt, blockedUntil: blockedUntil !== null && blockedUntil > clock ? blockedUntil : null, at: clock, times };
}

export async function finishJob(client: Client, finish: FinishJob, now: number): Promise<{ finished: boolean; wake: boolean }> {
  const requeues = finish.outcome.state === 'retry' || finish.outcome.state === 'deferred';
  // Going back to pending may meet a concurrent enqueue of the same key: take its lock too.
  const ownKey = requeues ? ((await rows(client, SQL.jobKey, [finish.jobId]))[0]?.coalesce_key ?? null) : null;
  const cancelKeys = [...new Set(finish.cancelPending?.coalesceKeys.map(boundKey) ?? [])];
  await lockKeys(client, keysOf(finish.enqueue ?? [], [ownKey as string | null, ...cancelKeys]));
  const [row] = await rows(client, PG.finish, [finish.jobId, finish.leaseOwner, ...finishParams(finish.outcome, finish.attempt !== undefined), now]);
  if (row === undefined) return { finished: false, wake: false };
  if (finish.rateSlot === 'settle') await client.query(PG.settleSlot, [finish.jobId]);
  else if (finish.rateSlot === 'refund') await client.query(SQL.refundSlot, [finish.jobId]);
  if (finish.attempt) await client.query(SQL.insertAttempt, [finish.jobId, ...attemptParams(finish.attempt)]);
  if (finish.enqueue?.length) await enqueueJobs(client, finish.enqueue, now);
  if (finish.eventUpdate) await client.query(SQL.updateEvent, [finish.eventUpdate.eventId, finish.eventUpdate.state, finish.eventUpdate.reason ?? null]);
  if (finish.matchRecord) await client.query(SQL.insertMatchRecord, matchRecordParams(finish.matchRecord, finish.jobId, now));
  for (const touch of finish.matchRecord?.touches ?? [])
    await client.query(SQL.upsertMatchTouch, [touch.kind, touch.value, boundKey(finish.matchRecord!.meetingKey), now]);
  for (const mark of finish.watermarks ?? []) await client.query(SQL.setWatermark, [mark.object, mark.modstamp, now]);
  if (finish.cancelPending) await cancelMeeting(client, finish.cancelPending, cancelKeys, finish.jobId, now);
  if (finish.delivered) await client.query(INSERT_DELIVERED, deliveredParams(finish.delivered, finish.jobId, now));
  return { finished: true, wake: finishWakes(finish, coalesceKeyOf(row)) };
}

/** FinishJob.cancelPending (the keys locked by the caller): pending jobs cancelled, the cancellation each key's newest state unless one is newer. */
async function cancelMeeting(client: Client, cancel: MeetingCancellation, keys: string[], jobId: number, now: number): Promise<void> {
  if (keys.length === 0) return;
  for (const key of keys) await client.query(SQL.cancelPendingOfKey, [key, cancel.reason, now]);
  const current = new Map((await rows(client, PG.meetingVersions, [keys])).map((row) => [String(row.coalesce_key), meetingVersionFromRow(row)!]));
  const newer = keys.filter((key) => {
    const version = current.get(key);
    return version === undefined || !isOlderState(cancel.version, version);
  });
  if (newer.length === 0) return;
  await client.query(PG.putMeetingVersions, [
    newer,
    newer.map(() => cancel.version.sourceVersion),
    newer.map(() => cancel.version.eventId),
    newer.map(() => jobId),
  ]);
}

/** Outcomes that end the job and write nothing but their attempt: PG.finishFinal stores them in one statement. */
export function isPlainFinal(finish: FinishJob): boolean {
  const { state } = finish.outcome;
  return (
    state !== 'retry' &&
    state !== 'deferred' &&
    !finish.enqueue?.length &&
    finish.eventUpdate === undefined &&
    finish.matchRecord === undefined &&
    finish.watermarks === undefined &&
    finish.cancelPending === undefined &&
    finish.delivered === undefined
  );
}

/** PG.finishFinal's parameters: SQL.finish's, the attempt's, and the NOTIFY to send when the job had a key. */
export function finishFinalParams(finish: FinishJob, now: number, notify: { channel: string; payload: string }): unknown[] {
  const attempt = finish.attempt ? attemptParams(finish.attempt) : [null, null, null, null, null, null];
  return [
    finish.jobId,
    finish.leaseOwner,
    ...finishParams(finish.outcome, finish.attempt !== undefined),
    now,
    finish.attempt !== undefined,
    ...attempt,
    notify.channel,
    notify.payload,
    finish.rateSlot ?? null,
  ];
}

export async function releaseLeases(client: Client, owner: string, now: number): Promise<number> {
  const keys = (await rows(client, PG.runningKeysOf, [owner])).map((row) => String(row.coalesce_key)).sort();
  await lockKeys(client, keys);
  return (await rows(client, SQL.releaseLeases, [owner, now])).length;
}
