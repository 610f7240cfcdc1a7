import { z } from 'zod';

import { parseDuration } from '../core/durations.ts';
import { int, list, type SettingsOf } from '../core/setting-kinds.ts';

/** The worker: how many jobs at once, how far ahead it claims, how long a lease lasts, when a failed job runs again. */
export const jobsSettings = {
  RETRY_SCHEDULE: z
    .string()
    .default('0s,10s,1m,5m,30m,2h,6h,12h')
    .transform((text, ctx) => {
      const steps = list(text).map(parseDuration);
      if (steps.length === 0 || steps.some((step) => step === undefined)) {
        ctx.addIssue({ code: 'custom', message: 'expected comma-separated durations such as 0s,10s,1m' });
        return z.NEVER;
      }
      return steps as number[];
    })
    .meta({ description: 'Delay before each attempt (±20 % jitter); after the last the delivery is dead', example: '0s,10s,1m,5m,30m,2h,6h,12h' }),
  WORKER_CONCURRENCY: int(4, 1, 256, { description: 'Jobs run at once by this process', example: '4' }),
  WORKER_PREFETCH: int(32, 0, 1_024, {
    description:
      'Most jobs claimed ahead of a free slot, never more than finished in the last 50 ms, so a busy worker batches claims with outcomes; 0 claims only for free slots',
    example: '32',
  }),
  WORKER_LEASE_MS: int(60_000, 1_000, 3_600_000, {
    description: "How long a claimed job stays leased without a heartbeat; a crashed process's jobs run again after it",
    example: '60000',
  }),
};

declare module '../core/config.ts' {
  interface Config extends SettingsOf<typeof jobsSettings> {}
}
