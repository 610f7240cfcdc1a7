import type { Config } from '../core/config.ts';
import type { Logger } from '../core/logger.ts';
import type { Pacer } from '../jobs/pacer.ts';
import type { JobHandler } from '../jobs/types.ts';
import type { MatchingRules } from '../matching/types.ts';
import type { MomentumReadMetrics } from '../metrics/bridge-metrics.ts';
import type { MomentumClient } from '../momentum/client.ts';
import { MOMENTUM_RATE_KEY } from '../momentum/delivery-jobs.ts';
import type { Store } from '../store/types.ts';
import { createReconcileHandler } from './reconcile-handler.ts';
import { reconcileKind } from './reconcile-job.ts';
import { type ReconcileTimer, startReconcileTimer } from './reconcile-timer.ts';

/** The re-match window when the mapping rules name none (`matching.rematchDays`). */
export const DEFAULT_REMATCH_DAYS = 30;

/**
 * `matching.rematchDays` from the mapping file when its rules carry it, else 30: reconcile lists
 * the meetings of the same window re-matching looks back over.
 */
export function rematchDaysOf(matching: MatchingRules): number {
  const days = (matching as MatchingRules & { rematchDays?: unknown }).rematchDays;
  return typeof days === 'number' && Number.isInteger(days) && days >= 0 ? days : DEFAULT_REMATCH_DAYS;
}

export interface ReconcileRuntime {
  handlers: Record<string, JobHandler>;
  /** Starts the timer when MOMENTUM_RECONCILE_INTERVAL is set (after the worker: its first walk may start at once). */
  start(): void;
  stop(): Promise<void>;
}

export function createReconcileRuntime(
  config: Config,
  deps: { client: MomentumClient; pacer: Pacer; store: Store; logger: Logger; matching: MatchingRules; metrics?: MomentumReadMetrics },
): ReconcileRuntime {
  const { store, logger } = deps;
  const handler = createReconcileHandler({
    client: deps.client,
    pacer: deps.pacer,
    rateKey: MOMENTUM_RATE_KEY,
    store,
    logger,
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
  });
  let timer: ReconcileTimer | undefined;
  return {
    handlers: { [reconcileKind.name]: handler },
    start() {
      const intervalMs = config.MOMENTUM_RECONCILE_INTERVAL;
      if (intervalMs === undefined || timer !== undefined) return;
      timer = startReconcileTimer({
        store,
        leases: store.channels,
        logger,
        intervalMs,
        windowDays: rematchDaysOf(deps.matching),
      });
    },
    stop: async () => timer?.stop(),
  };
}
