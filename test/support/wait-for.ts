export interface WaitForOptions {
  /** Time between two checks (default 10 ms). */
  intervalMs?: number;
  /** What to add to the timeout message: the last state seen, so a failure says where it stopped. */
  lastSeen?: () => string;
}

/** Polls until `check` holds; fails with `what` after `timeoutMs` (a liveness bound, not a speed assertion). */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000, options: WaitForOptions = {}): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}${options.lastSeen ? `; ${options.lastSeen()}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 10));
  }
}
