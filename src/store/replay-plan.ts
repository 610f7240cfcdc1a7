import type { Job, NewJob, ReplayResult } from './types.ts';

/** Engine-neutral part of enqueueReplays: which replays to insert, and what each caller's job became. */

/** The distinct originals the replays name, ascending (the order PostgreSQL locks them in). */
export function replayOriginals(replays: readonly NewJob[]): number[] {
  const originals = new Set<number>();
  for (const job of replays) {
    if (job.replayOf === undefined) throw new Error(`enqueueReplays got a ${job.kind} job without replayOf`);
    originals.add(job.replayOf);
  }
  return [...originals].sort((a, b) => a - b);
}

/** What became of one replay asked for: stopped by a stored replay, by an earlier one of this call, or inserted. */
type Slot = { replayOf: number; existing: number } | { replayOf: number; sameAs: number } | { replayOf: number; index: number };

export interface ReplayPlan {
  /** The replays to insert, in the callers' order. */
  toCreate: NewJob[];
  /** One result per replay asked for, given the jobs inserted for `toCreate` (same order). */
  results(created: readonly Job[]): ReplayResult[];
}

/**
 * `blocking`: per original, the stored replay that stops a new one. An original named twice gets
 * one replay: the later job meets the earlier one's, as if they had been asked for one by one.
 */
export function planReplays(replays: readonly NewJob[], blocking: ReadonlyMap<number, number>): ReplayPlan {
  const toCreate: NewJob[] = [];
  const createdAt = new Map<number, number>();
  const slots = replays.map((job): Slot => {
    const replayOf = job.replayOf as number;
    const existing = blocking.get(replayOf);
    if (existing !== undefined) return { replayOf, existing };
    const earlier = createdAt.get(replayOf);
    if (earlier !== undefined) return { replayOf, sameAs: earlier };
    createdAt.set(replayOf, toCreate.length);
    toCreate.push(job);
    return { replayOf, index: toCreate.length - 1 };
  });
  return {
    toCreate,
    results(created) {
      if (created.length !== toCreate.length) throw new Error(`enqueueReplays inserted ${created.length} jobs for ${toCreate.length} replays`);
      const at = (index: number) => created[index] as Job;
      return slots.map((slot): ReplayResult => {
        if ('existing' in slot) return { replayOf: slot.replayOf, existingReplayId: slot.existing };
        if ('sameAs' in slot) return { replayOf: slot.replayOf, existingReplayId: at(slot.sameAs).id };
        return { replayOf: slot.replayOf, created: at(slot.index) };
      });
    },
  };
}
