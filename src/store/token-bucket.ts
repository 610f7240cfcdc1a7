/**
 * Token-bucket arithmetic, shared by both engines: each engine reads the row, calls these
 * functions and writes the result back inside one transaction (a row lock on PostgreSQL), so
 * several instances draw from one budget.
 */

export interface BucketRow {
  tokens: number;
  updatedAt: number;
  blockedUntil: number | null;
}

/** The bucket as of `now`: refilled evenly, `capacity` tokens per `windowMs`, never above capacity. */
export function refill(row: BucketRow | undefined, capacity: number, windowMs: number, now: number): BucketRow {
  // A bucket that was never used starts full.
  if (row === undefined) return { tokens: capacity, updatedAt: now, blockedUntil: null };
  // Blocked (after a 429): nothing refills until the block ends; updatedAt is the block's end.
  const elapsed = Math.max(0, now - row.updatedAt);
  const tokens = Math.min(capacity, row.tokens + (elapsed * capacity) / windowMs);
  return { tokens, updatedAt: Math.max(row.updatedAt, now), blockedUntil: row.blockedUntil };
}

/** Takes one token if there is one: `wait` is 0 then, else the ms until one will be free. */
export function take(row: BucketRow | undefined, capacity: number, windowMs: number, now: number): { wait: number; row: BucketRow } {
  if (row?.blockedUntil != null && row.blockedUntil > now) return { wait: row.blockedUntil - now, row };
  const current = refill(row, capacity, windowMs, now);
  if (current.tokens >= 1) return { wait: 0, row: { ...current, tokens: current.tokens - 1, blockedUntil: null } };
  return { wait: Math.max(1, Math.ceil(((1 - current.tokens) * windowMs) / capacity)), row: current };
}

/** After a 429: empty, and refilling only from `untilMs` (the later of an existing block and this one). */
export function block(row: BucketRow | undefined, untilMs: number): BucketRow {
  const until = Math.max(untilMs, row?.blockedUntil ?? 0);
  return { tokens: 0, updatedAt: Math.max(until, row?.updatedAt ?? 0), blockedUntil: until };
}

export function view(row: BucketRow | undefined, capacity: number, windowMs: number, now: number): { tokens: number; blockedUntil: number | null } {
  if (row?.blockedUntil != null && row.blockedUntil > now) return { tokens: 0, blockedUntil: row.blockedUntil };
  return { tokens: refill(row, capacity, windowMs, now).tokens, blockedUntil: null };
}
