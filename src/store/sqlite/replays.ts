import { planReplays, replayOriginals } from '../replay-plan.ts';
import { REPLAY_SQL } from '../replay-sql.ts';
import type { NewJob, ReplayGuard, ReplayResult } from '../types.ts';
import { enqueueJobs } from './jobs.ts';
import type { SqliteQueries } from './queries.ts';

/**
 * The SQLite engine's enqueueReplays. It runs inside a group-commit batch, that is inside BEGIN
 * IMMEDIATE, which excludes every other writer on the file (this process or another): no replay can
 * be inserted between the check and the insert.
 */
export function enqueueReplays(q: SqliteQueries, replays: readonly NewJob[], guard: ReplayGuard, now: number): ReplayResult[] {
  const blocking = new Map<number, number>();
  for (const original of replayOriginals(replays)) {
    const row = q.get(REPLAY_SQL.blockingReplay, original, guard);
    if (row !== undefined) blocking.set(original, Number(row.id));
  }
  const plan = planReplays(replays, blocking);
  return plan.results(plan.toCreate.length === 0 ? [] : enqueueJobs(q, plan.toCreate, now));
}
