import { attemptParams, finishParams, finishWakes, keysOf, pickClaimable } from './job-rules.ts';
import type { Client } from './postgres-pool.ts';
import { PG } from './postgres-sql.ts';
import { candidateFromRow, coalesceKeyOf, jobFromRow, type Row } from './row-mappers.ts';
import { SQL } from './sql.ts';
import { toJson } from './store-values.ts';
import type { ClaimOptions, FinishJob, InboundEvent, IngestResult, Job, NewInboundMessage, NewJob } from './types.ts';

/** The PostgreSQL engine's write operations, each run inside a transaction by postgres-store.ts. */

const rows = async (client: Client, sql: string, params: unknown[]): Promise<Row[]> => (await client.query(sql, params)).rows as Row[];

/** Guards concurrent enqueues of one key, so jobs_pending_key never throws (keys arrive sorted). */
export async function lockKeys(client: Client, keys: string[]): Promise<void> {
  if (keys.length > 0) await client.query(PG.lockKeys, [keys]);
}

/**
 * Inserts jobs with coalescing, set-based. Within the batch a later job of a key supersedes the
 * earlier one; the key's job already pending is superseded by the batch's first job of that key,
 * exactly as if the jobs had been enqueued one by one. Callers hold the key locks.
 */
export async function enqueueJobs(client: Client, jobs: readonly NewJob[], now: number): Promise<Job[]> {
  if (jobs.length === 0) return [];
  const ids = (await rows(client, PG.nextJobIds, [jobs.length])).map((row) => Number(row.id));
  const supersededBy: Array<number | null> = jobs.map(() => null);
  const firstOfKey = new Map<string, number>();
  const previousOfKey = new Map<string, number>();
  jobs.forEach((job, index) => {
    if (job.coalesceKey === undefined) return;
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
  ]);
  const byId = new Map(inserted.map((row) => [Number(row.id), jobFromRow(row)]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

export async function ingestMessage(client: Client, message: NewInboundMessage, jobsFor: (event: InboundEvent) => NewJob[], now: number): Promise<IngestResult & { jobCount: number }> {
  const receivedAt = message.receivedAt ?? now;
  const senderId = message.senderId ?? null;
  const [messageRow] = await rows(client, `${SQL.insertMessage} RETURNING id`, [message.source, senderId, message.rawPayload, receivedAt]);
  const messageId = Number(messageRow?.id);
  // A key repeated inside one message is a duplicate of its first occurrence.
  const seen = new Set<string>();
  const firsts = message.events.filter((event) => !seen.has(event.dedupeKey) && seen.add(event.dedupeKey));
  const insertedIds = new Map(
    (await rows(client, PG.insertEvents, [messageId, message.source, senderId, firsts.map((e) => e.dedupeKey), firsts.map((e) => toJson(e.parsedPayload)), receivedAt])).map((row) => [String(row.dedupe_key), Number(row.id)]),
  );
  const created: InboundEvent[] = [];
  const duplicates: string[] = [];
  for (const event of message.events) {
    const id = insertedIds.get(event.dedupeKey);
    // Deleting marks the key used: a second occurrence in this message is a duplicate.
    if (id === undefined) duplicates.push(event.dedupeKey);
    else {
      insertedIds.delete(event.dedupeKey);
      created.push({ id, messageId, source: message.source, senderId, dedupeKey: event.dedupeKey, parsedPayload: event.parsedPayload, receivedAt, state: 'received', stateReason: null });
    }
  }
  const jobs = created.flatMap((event) => jobsFor(event).map((job) => ({ ...job, eventId: job.eventId ?? event.id })));
  await lockKeys(client, keysOf(jobs));
  await enqueueJobs(client, jobs, now);
  return { created, duplicates, jobCount: jobs.length };
}


export async function claimJobs(client: Client, options: ClaimOptions & { now: number }): Promise<Job[]> {
  const { owner, limit, leaseMs, now } = options;
  if (limit <= 0) return [];
  await client.query(PG.lockClaim);
  const candidates = [...(await rows(client, PG.claimExpired, [now, limit])), ...(await rows(client, PG.claimPending, [now, limit]))].map(candidateFromRow);
  const picked = pickClaimable(candidates, limit);
  if (picked.length === 0) return [];
  const claimed = await rows(client, PG.markClaimed, [picked.map((job) => job.id), owner, now + leaseMs, now]);
  const byId = new Map(claimed.map((row) => [Number(row.id), jobFromRow(row)]));
  return picked.flatMap((job) => byId.get(job.id) ?? []);
}

export async function finishJob(client: Client, finish: FinishJob, now: number): Promise<{ finished: boolean; wake: boolean }> {
  const requeues = finish.outcome.state === 'retry' || finish.outcome.state === 'deferred';
  // Going back to pending may meet a concurrent enqueue of the same key: take its lock too.
  const ownKey = requeues ? ((await rows(client, SQL.jobKey, [finish.jobId]))[0]?.coalesce_key ?? null) : null;
  await lockKeys(client, keysOf(finish.enqueue ?? [], [ownKey as string | null]));
  const [row] = await rows(client, PG.finish, [finish.jobId, finish.leaseOwner, ...finishParams(finish.outcome, finish.attempt !== undefined), now]);
  if (row === undefined) return { finished: false, wake: false };
  if (finish.attempt) await client.query(SQL.insertAttempt, [finish.jobId, ...attemptParams(finish.attempt)]);
  if (finish.enqueue?.length) await enqueueJobs(client, finish.enqueue, now);
  if (finish.eventUpdate) await client.query(SQL.updateEvent, [finish.eventUpdate.eventId, finish.eventUpdate.state, finish.eventUpdate.reason ?? null]);
  return { finished: true, wake: finishWakes(finish, coalesceKeyOf(row)) };
}

/** Outcomes that end the job and write nothing but their attempt: PG.finishFinal stores them in one statement. */
export function isPlainFinal(finish: FinishJob): boolean {
  const { state } = finish.outcome;
  return state !== 'retry' && state !== 'deferred' && !finish.enqueue?.length && finish.eventUpdate === undefined;
}

/** PG.finishFinal's parameters: SQL.finish's, the attempt's, and the NOTIFY to send when the job had a key. */
export function finishFinalParams(finish: FinishJob, now: number, notify: { channel: string; payload: string }): unknown[] {
  const attempt = finish.attempt ? attemptParams(finish.attempt) : [null, null, null, null, null, null];
  return [finish.jobId, finish.leaseOwner, ...finishParams(finish.outcome, finish.attempt !== undefined), now, finish.attempt !== undefined, ...attempt, notify.channel, notify.payload];
}

export async function releaseLeases(client: Client, owner: string, now: number): Promise<number> {
  const keys = (await rows(client, PG.runningKeysOf, [owner])).map((row) => String(row.coalesce_key)).sort();
  await lockKeys(client, keys);
  return (await rows(client, SQL.releaseLeases, [owner, now])).length;
}
