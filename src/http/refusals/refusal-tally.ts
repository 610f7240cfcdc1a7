import type { Refusal, RefusalBatch, RefusalBucket } from '../../store/types.ts';

/**
 * Refused inbound requests counted in memory between flushes: one counter per route, reason and
 * minute, and the newest few examples per route and reason. What it holds is bounded by the routes
 * and reasons there are (a fixed set) and the minutes between two flushes, never by the number of
 * requests: a flood of a million refusals is still a handful of counters and five examples each.
 */

export const BUCKET_MS = 60_000;
/** Examples kept per route and reason, here and in the store. */
export const EXAMPLES_KEPT = 5;
// Client addresses come from a header when TRUST_PROXY trusts one: cut, so a row stays small.
const SENDER_MAX = 100;

export interface RefusalTally {
  record(refusal: Refusal): void;
  /** Everything counted since the last take, handed over and forgotten (the flush writes it). */
  take(): RefusalBatch;
  /** Puts back a batch whose write failed, so the next flush writes it with the newer counts. */
  restore(batch: RefusalBatch): void;
  /** What is counted and not yet taken, left in place (the admin answer adds it to the stored counts). */
  pending(): RefusalBatch;
}

const pairKey = (route: string, reason: string) => `${route}\u0000${reason}`;

export function createRefusalTally(): RefusalTally {
  let buckets = new Map<string, RefusalBucket>();
  let examples = new Map<string, Refusal[]>();

  const count = (bucket: RefusalBucket) => {
    const key = `${pairKey(bucket.route, bucket.reason)}\u0000${bucket.bucketStart}`;
    const known = buckets.get(key);
    if (known === undefined) buckets.set(key, { ...bucket });
    else {
      known.count += bucket.count;
      known.lastAt = Math.max(known.lastAt, bucket.lastAt);
    }
  };
  const keepExample = (refusal: Refusal) => {
    const key = pairKey(refusal.route, refusal.reason);
    const kept = examples.get(key) ?? [];
    kept.push(refusal);
    if (kept.length > EXAMPLES_KEPT) {
      kept.sort((a, b) => b.at - a.at);
      kept.length = EXAMPLES_KEPT;
    }
    examples.set(key, kept);
  };
  const snapshot = (): RefusalBatch => ({ buckets: [...buckets.values()].map((bucket) => ({ ...bucket })), examples: [...examples.values()].flat() });

  return {
    record(refusal) {
      const bounded = { ...refusal, sender: refusal.sender.slice(0, SENDER_MAX) };
      count({ route: bounded.route, reason: bounded.reason, bucketStart: Math.floor(bounded.at / BUCKET_MS) * BUCKET_MS, count: 1, lastAt: bounded.at });
      keepExample(bounded);
    },
    take() {
      const batch = snapshot();
      buckets = new Map();
      examples = new Map();
      return batch;
    },
    restore(batch) {
      for (const bucket of batch.buckets) count(bucket);
      for (const example of batch.examples) keepExample(example);
    },
    pending: snapshot,
  };
}
