/**
 * Upstream budgets as the store keeps them: which budgets a claim draws call slots from, and a
 * budget's state as the pacer reads it (the pacing log is in the database, shared by every instance).
 */

export interface ClaimPacing {
  /** Every budget whose jobs this worker runs; one without `limit` is not paced (MOMENTUM_RATE_LIMIT=off). */
  budgets: ReadonlyArray<PacedBudget>;
  /** Most paced jobs one claim may take: a paced job is claimed only to start at once. */
  max: number;
}

export interface PacedBudget {
  /** The budget as jobs name it (their rate key). */
  key: string;
  /**
   * Where its calls are logged and blocked (rate_slots, rate_limits): the upstream's own identity of
   * the budget, such as which API key the calls carry. Defaults to `key`. Jobs keep naming the
   * budget by `key`, so jobs stored under one log are still claimed when the log changes.
   */
  logKey?: string;
  limit?: { requests: number; windowMs: number };
  /**
   * Longest one call may take (its client's total timeout). A slot is dated this far past its claim
   * until the call's answer settles it: a call whose answer is never stored (its process died, its
   * lease was lost) may have reached the upstream at any moment until then, and counts as if it
   * had arrived at the last one. Dated at the claim instead, such a slot would leave the window
   * while the call it stands for, sent a little after the claim, is still in the upstream's.
   */
  callTimeoutMs?: number;
}

/** A budget as the pacer sees it now (on PostgreSQL, by the database's clock). */
export interface RateState {
  /** Calls in the current window (now - windowMs, now]. */
  used: number;
  /** When the next call may go: now when `used` < the limit and nothing blocks, else later. */
  nextFreeAt: number;
  blockedUntil: number | null;
  /** The clock these times were read against. */
  at: number;
  /** The log these figures come from: the call slots in the window, ascending (some may lie ahead of `at`: calls not yet answered). */
  times: number[];
}

/** The log a budget's calls are written to (PacedBudget.logKey, else its key). */
export const logKeyOf = (budget: PacedBudget): string => budget.logKey ?? budget.key;
