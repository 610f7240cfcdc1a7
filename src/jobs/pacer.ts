import type { ClaimPacing, RateBudget } from '../store/types.ts';

/** MOMENTUM_RATE_LIMIT parsed: `requests` per `windowMs`. */
export interface RateLimit {
  requests: number;
  windowMs: number;
}

export type PacerStore = Pick<RateBudget, 'rateState' | 'blockRate'>;

/** A budget as operators see it (admin stats, console). */
export interface BudgetView {
  key: string;
  capacity: number;
  windowMs: number;
  /** Calls in the current window. */
  used: number;
  /** Calls that may go now. */
  remaining: number;
  nextFreeAt: number;
  blockedUntil: number | null;
  /** The calls in the window, ascending (for the arithmetic of a backlog, rate-log.ts lastCallAt). */
  times: number[];
  /** The clock the view was read against (on PostgreSQL, the database's). */
  at: number;
}

/**
 * The budgets paced jobs draw from. Slots are taken by the store's claim (so a job that would have
 * to wait is never claimed, and a worker sleeps until the next slot frees); this object names the
 * budgets for the worker, lets handlers block a budget when the upstream says so, and shows it.
 * `limit` undefined is MOMENTUM_RATE_LIMIT=off: jobs of that key are claimed like any other.
 */
export interface Pacer {
  /** What the worker passes to claim() and nextDueAt(), `max` being its free slots. */
  claimPacing(max: number): ClaimPacing;
  /** No calls on `key` until `untilMs` (a 429, or an upstream header saying the budget is spent). */
  block(key: string, untilMs: number): Promise<void>;
  view(key: string): Promise<BudgetView | undefined>;
}

export interface BudgetSetting {
  /** The budget as jobs name it (their rate key). */
  key: string;
  limit: RateLimit | undefined;
  callTimeoutMs?: number;
  /** Where its calls are logged (PacedBudget.logKey): which API key they carry, for one. Defaults to `key`. */
  logKey?: string;
}

export function createPacer(store: PacerStore, budgets: ReadonlyArray<BudgetSetting>): Pacer {
  const limits = new Map(budgets.map((budget) => [budget.key, budget.limit]));
  const logKeys = new Map(budgets.map((budget) => [budget.key, budget.logKey ?? budget.key]));
  const claimBudgets = budgets.map(({ key, limit, callTimeoutMs, logKey }) => ({
    key,
    ...(logKey === undefined ? {} : { logKey }),
    ...(limit === undefined ? {} : { limit, ...(callTimeoutMs === undefined ? {} : { callTimeoutMs }) }),
  }));
  return {
    claimPacing: (max) => ({ budgets: claimBudgets, max }),
    async block(key, untilMs) {
      // Pacing off: a 429 still delays that job through its Retry-After, but blocks nothing else.
      if (limits.get(key) !== undefined) await store.blockRate(logKeys.get(key) ?? key, untilMs);
    },
    async view(key) {
      const limit = limits.get(key);
      if (limit === undefined) return undefined;
      const state = await store.rateState(logKeys.get(key) ?? key, limit.requests, limit.windowMs);
      const remaining = state.blockedUntil === null ? Math.max(0, limit.requests - state.used) : 0;
      return {
        key,
        capacity: limit.requests,
        windowMs: limit.windowMs,
        used: state.used,
        remaining,
        nextFreeAt: state.nextFreeAt,
        blockedUntil: state.blockedUntil,
        times: state.times,
        at: state.at,
      };
    },
  };
}
