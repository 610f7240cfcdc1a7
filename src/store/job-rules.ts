import { boundKey, toJson, truncateExcerpt } from './store-values.ts';
import type { AttemptRecord, FinishJob, NewJob } from './types.ts';

/** Engine-neutral decisions about jobs; each engine only runs the SQL. */

export interface Candidate {
  id: number;
  coalesceKey: string | null;
  serialKey: string | null;
  rateKey: string | null;
  priority: number;
  runAt: number;
}

/**
 * From the expired-lease and pending candidates, the jobs to claim: lowest priority class first,
 * then oldest run_at; never two of one coalescing or serial key (jobs with the same key never run
 * at the same time); never more jobs of a budget than `slots` grants it (a key absent from `slots`
 * is not paced). A paced job only among the first `startNow` picked (ClaimPacing.max): the worker
 * starts a claim's jobs in this order, that many at once, and a paced job further down would wait
 * for a worker slot with its call slot taken.
 */
export function pickClaimable(
  candidates: Candidate[],
  limit: number,
  slots: ReadonlyMap<string, number> = new Map(),
  startNow = Number.POSITIVE_INFINITY,
): Candidate[] {
  const sorted = [...candidates].sort((a, b) => a.priority - b.priority || a.runAt - b.runAt || a.id - b.id);
  const keys = new Set<string>();
  const left = new Map(slots);
  const picked: Candidate[] = [];
  const seen = new Set<number>();
  for (const candidate of sorted) {
    if (picked.length >= limit) break;
    if (seen.has(candidate.id)) continue;
    const budget = candidate.rateKey === null ? undefined : left.get(candidate.rateKey);
    if (budget !== undefined && (budget <= 0 || picked.length >= startNow)) continue;
    const own = [candidate.coalesceKey === null ? null : `c:${candidate.coalesceKey}`, candidate.serialKey === null ? null : `s:${candidate.serialKey}`].filter(
      (key): key is string => key !== null,
    );
    if (own.some((key) => keys.has(key))) continue;
    for (const key of own) keys.add(key);
    if (budget !== undefined) left.set(candidate.rateKey as string, budget - 1);
    seen.add(candidate.id);
    picked.push(candidate);
  }
  return picked;
}

/** Parameters $3…$7 of SQL.finish for an outcome. */
export function finishParams(outcome: FinishJob['outcome'], counted: boolean): [string, number | null, string | null, string | null, number] {
  const increment = counted ? 1 : 0;
  switch (outcome.state) {
    case 'succeeded':
      return ['succeeded', null, null, outcome.result === undefined ? null : toJson(outcome.result), increment];
    case 'retry':
      return ['pending', outcome.runAt, outcome.error, null, increment];
    case 'deferred':
      return ['pending', outcome.runAt, null, null, increment];
    default:
      return [outcome.state, null, outcome.reason, outcome.result === undefined ? null : toJson(outcome.result), increment];
  }
}

/** Whether a finish may have made work claimable (a new pending job, or a key freed for its next job). */
export function finishWakes(finish: FinishJob, coalesceKey: string | null): boolean {
  return finish.outcome.state === 'retry' || finish.outcome.state === 'deferred' || (finish.enqueue?.length ?? 0) > 0 || coalesceKey !== null;
}

/** Parameters $2…$7 of SQL.insertAttempt (the job id is $1). */
export function attemptParams(attempt: AttemptRecord): [number, number, number | null, string | null, string | null, string | null] {
  return [
    attempt.startedAt,
    Math.max(0, Math.round(attempt.durationMs)),
    attempt.status ?? null,
    attempt.errorClass ?? null,
    truncateExcerpt(attempt.responseExcerpt),
    attempt.upstreamRequestId ?? null,
  ];
}

/** The distinct coalescing keys a set of jobs will lock, sorted so concurrent transactions lock in one order. */
export function keysOf(jobs: readonly NewJob[], extra: Array<string | null> = []): string[] {
  const keys = new Set<string>();
  for (const job of jobs) if (job.coalesceKey !== undefined) keys.add(boundKey(job.coalesceKey));
  for (const key of extra) if (key !== null) keys.add(key);
  return [...keys].sort();
}
