import { isAppError } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import type { Worker } from '../jobs/worker.ts';
import type { StoreLifecycle } from '../store/types.ts';

export interface ReadinessCheck {
  name: string;
  /**
   * Resolves when the dependency is usable; rejects (or throws) with the reason otherwise. An
   * AppError's message is written for the caller and shown as the check's `reason`.
   */
  check: () => Promise<void>;
}

/**
 * What /readyz asks on every call, so it recovers by itself: the store answers a ping (a dropped
 * database fails it until connections come back; SQLite fails it, naming why, while its writes fail
 * for want of disk), and the worker is running (it stops on SIGTERM).
 */
export function bridgeReadiness(store: Pick<StoreLifecycle, 'ping'>, worker: Pick<Worker, 'isRunning'>): ReadinessCheck[] {
  return [
    { name: 'store', check: () => store.ping() },
    // Throw, not `void Promise.reject(…)`: a discarded rejection passes the check and crashes the process.
    {
      name: 'worker',
      check: async () => {
        if (!worker.isRunning()) throw new Error('worker is stopped');
      },
    },
  ];
}

export interface ReadinessResult {
  name: string;
  ok: boolean;
  /** Why it failed, when the reason is written for the caller (an AppError's message). */
  reason?: string;
}

/** Runs every check at once: what /readyz answers and GET /admin/health repeats. */
export async function runReadiness(checks: readonly ReadinessCheck[], logger: Logger): Promise<{ ready: boolean; checks: ReadinessResult[] }> {
  const results = await Promise.all(
    checks.map(async ({ name, check }): Promise<ReadinessResult> => {
      try {
        await check();
        return { name, ok: true };
      } catch (error) {
        logger.warn('readiness check failed', { check: name, error });
        // Any other reason may name hosts or driver internals: it goes to the log, not to the caller.
        return isAppError(error) ? { name, ok: false, reason: error.message } : { name, ok: false };
      }
    }),
  );
  return { ready: results.every((result) => result.ok), checks: results };
}
