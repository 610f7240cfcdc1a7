/**
 * Refused inbound requests as the store keeps them (docs/operations.md, "Refused traffic"): counts
 * per route, reason and minute, and the newest few examples per route and reason. Never a body:
 * a refusal is who was refused, where, why and when. The edge counts them in memory and writes a
 * batch every few seconds, so a flood of refused requests costs one write per flush, not one per request.
 */

/** One refused request: the inbound route (its path), the refusal's code, the client address (req.ip), when. */
export interface Refusal {
  route: string;
  reason: string;
  sender: string;
  at: number;
}

/** Refusals of one route and reason counted in one bucket (a minute) starting at `bucketStart`. */
export interface RefusalBucket {
  route: string;
  reason: string;
  bucketStart: number;
  count: number;
  lastAt: number;
}

/** What one flush writes: the counts since the last one and the newest examples per route and reason. */
export interface RefusalBatch {
  buckets: RefusalBucket[];
  examples: Refusal[];
}

/** What the store keeps: examples beyond the newest `examples` of a route and reason go, and every row before `since`. */
export interface RefusalKeep {
  examples: number;
  since: number;
}

/** Counts and examples since a time, each route and reason once. */
export interface RefusalTotals {
  counts: Array<{ route: string; reason: string; count: number; lastAt: number }>;
  /** Newest first, at most the kept number per route and reason. */
  examples: Refusal[];
}

export interface RefusalStore {
  /** Adds a flush's counts and examples and prunes to `keep`, in one transaction (SQLite: one non-durable write batch). */
  record(batch: RefusalBatch, keep: RefusalKeep): Promise<void>;
  /** Counts of buckets starting at or after `since`, and the examples at or after it. */
  totals(since: number): Promise<RefusalTotals>;
}

export interface Refusals {
  readonly refusals: RefusalStore;
}
