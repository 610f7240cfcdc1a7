import { toJson, truncateExcerpt } from './store-values.ts';
import type { AttemptRecord, FinishJob, NewJob } from './types.ts';

/** Engine-neutral decisions about jobs; each engine only runs the SQL. */

export interface Candidate {
  id: number;
  coalesceKey: string | null;
  runAt: number;
}

/**
 * From the expired-lease and pending candidates, the jobs to claim: oldest run_at first, never two
 * of one key (issue 3: "jobs with the same key never run at the same time").
 */
export function pickClaimable(candidates: Candidate[], limit: number): Candidate[] {
  const sorted = [...candidates].sort((a, b) => a.runAt - b.runAt || a.id - b.id);
  const keys = new Set<string>();
  const picked: Candidate[] = [];
  for (const candidate of sorted) {
    if (picked.length >= limit) break;
    if (candidate.coalesceKey !== null) {
      if (keys.has(candidate.coalesceKey)) continue;
      keys.add(candidate.coalesceKey);
    }
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
  for (const job of jobs) if (job.coalesceKey !== undefined) keys.add(job.coalesceKey);
  for (const key of extra) if (key !== null) keys.add(key);
  return [...keys].sort();
}
