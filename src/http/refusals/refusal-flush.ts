import type { Logger } from '../../core/logger.ts';
import { startSerialTicks } from '../../core/serial-ticks.ts';
import type { RefusalStore } from '../../store/types.ts';
import { EXAMPLES_KEPT, type RefusalTally } from './refusal-tally.ts';

/** How long counts and examples are kept: the admin window (`?hours=`) reaches this far back. */
export const REFUSAL_KEEP_HOURS = 48;
const HOUR_MS = 3_600_000;

export interface RefusalFlushOptions {
  tally: RefusalTally;
  store: RefusalStore;
  logger: Logger;
  /** How often the counts are written (default 5 s): the most a crash can lose. */
  everyMs?: number;
  now?: () => number;
}

export interface RefusalFlush {
  /** Writes what is counted now (nothing when nothing is); a failed write is put back for the next one. */
  flush(): Promise<void>;
  /** No more timer flushes; one last flush of what is left, so a graceful stop loses no count. */
  stop(): Promise<void>;
}

/**
 * The tally written on a timer: one store write per interval whatever the number of refusals,
 * pruned in the same write (examples to the newest EXAMPLES_KEPT per route and reason, every row
 * older than REFUSAL_KEEP_HOURS). Writes never overlap (serial-ticks.ts).
 */
export function startRefusalFlush(options: RefusalFlushOptions): RefusalFlush {
  const { tally, store, logger } = options;
  const now = options.now ?? Date.now;

  async function flush(): Promise<void> {
    const batch = tally.take();
    if (batch.buckets.length === 0) return;
    try {
      await store.record(batch, { examples: EXAMPLES_KEPT, since: now() - REFUSAL_KEEP_HOURS * HOUR_MS });
    } catch (error) {
      tally.restore(batch);
      throw error;
    }
    const refused = batch.buckets.reduce((sum, bucket) => sum + bucket.count, 0);
    logger.debug('refusals stored', { refused, buckets: batch.buckets.length, examples: batch.examples.length });
  }

  const ticks = startSerialTicks(flush, { everyMs: options.everyMs ?? 5_000, logger, failure: 'refusals not stored (kept for the next flush)' });
  return {
    flush: ticks.tick,
    async stop() {
      await ticks.stop();
      await flush().catch((error: unknown) => logger.warn('refusals not stored at stop', { error: (error as Error).message }));
    },
  };
}
