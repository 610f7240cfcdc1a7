import type { Logger } from '../../core/logger.ts';
import { type SerialTicks, startSerialTicks } from '../../core/serial-ticks.ts';

/**
 * The periodic backstop of one channel (docs/operations.md, Salesforce Pub/Sub): every
 * SALESFORCE_PUBSUB_BACKSTOP the instance holding the channel's lease reads by SystemModstamp what
 * changed since the previous read began, so what a stream missed without an error (streams have
 * gone silent, events have been lost in outages) is stored all the same, as every peer that ingests
 * Salesforce keeps a timestamp watermark. A state already delivered maps to the same remap and is
 * not sent again. The first read reaches one interval back.
 */

/** Each read starts a minute before the last one began: commits still in flight and clock drift. */
export const BACKSTOP_OVERLAP_MS = 60_000;

export interface PeriodicBackstopOptions {
  everyMs: number;
  /** Whether this instance holds the channel's lease now. */
  holds(): boolean;
  /** Reads and stores what changed since `since` (epoch ms; undefined: one interval back). */
  backstop(since: number | undefined): Promise<void>;
  logger: Logger;
  now?: () => number;
}

export function startPeriodicBackstop(options: PeriodicBackstopOptions): SerialTicks<void> {
  const now = options.now ?? Date.now;
  let lastFrom: number | undefined;
  return startSerialTicks(
    async () => {
      if (!options.holds()) return;
      const started = now();
      await options.backstop(lastFrom);
      // Only a read that finished moves the watermark: a failed one is read again from the same point.
      lastFrom = started - BACKSTOP_OVERLAP_MS;
    },
    { everyMs: options.everyMs, logger: options.logger, failure: 'Salesforce Pub/Sub backstop failed' },
  );
}
