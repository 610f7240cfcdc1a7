import { z } from 'zod';

import { defineJobKind } from '../jobs/job-kind.ts';
import { MOMENTUM_RATE_KEY } from '../momentum/delivery-jobs.ts';
import { JOB_PRIORITY, type NewJob } from '../store/types.ts';

/**
 * `reconcile`: one page of Momentum's meetings of the re-match window (docs/operations.md,
 * reconcile). Each job is one listing call, drawn from Momentum's budget like a remap, in the lowest
 * priority class; the pages of one walk share one coalescing key, so walks never overlap.
 */

export const RECONCILE_KEY = 'reconcile';

export const reconcilePayloadSchema = z.strictObject({
  /** The window listed (epoch ms): meetings starting at or after `from`, ending at or before `to`. */
  from: z.int(),
  to: z.int(),
  pageNumber: z.int().min(1),
});

export type ReconcilePage = z.infer<typeof reconcilePayloadSchema>;

export const reconcileKind = defineJobKind('reconcile', reconcilePayloadSchema, {
  fieldsOf: () => ({ coalesceKey: RECONCILE_KEY, rateKey: MOMENTUM_RATE_KEY, priority: JOB_PRIORITY.bulk }),
});

export const reconcileJob = (page: ReconcilePage): NewJob => reconcileKind.job(page);
