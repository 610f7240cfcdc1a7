import { keysOf } from '../job-rules.ts';
import { planReplays, replayOriginals } from '../replay-plan.ts';
import { PG_REPLAY_SQL } from '../replay-sql.ts';
import type { NewJob, ReplayGuard, ReplayResult } from '../types.ts';
import { enqueueJobs, lockKeys } from './jobs.ts';
import type { Client } from './pool.ts';

/**
 * The PostgreSQL engine's enqueueReplays, inside one transaction. Two instances (or two calls on
 * one) replaying the same original serialise on the original's row lock; the one that comes second
 * reads the first one's replay, committed, and inserts none.
 */
export async function enqueueReplays(client: Client, replays: readonly NewJob[], guard: ReplayGuard, now: number): Promise<ReplayResult[]> {
  const originals = replayOriginals(replays);
  await client.query(PG_REPLAY_SQL.lockOriginals, [originals]);
  const { rows } = await client.query(PG_REPLAY_SQL.blockingReplays, [originals, guard]);
  const plan = planReplays(replays, new Map(rows.map((row: Record<string, unknown>) => [Number(row.replay_of), Number(row.id)])));
  // The same key locks as enqueue, taken after the row locks by every caller of this function.
  await lockKeys(client, keysOf(plan.toCreate));
  return plan.results(await enqueueJobs(client, plan.toCreate, now));
}
