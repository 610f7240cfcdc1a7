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

export interface PeriodicBackstop extends SerialTicks<void> {
  /** A read from `from` is owed (a catch-up that failed): the next reads start there until one succeeds. */
  reachBack(from: number): void;
}

export function startPeriodicBackstop(options: PeriodicBackstopOptions): PeriodicBackstop {
  const now = options.now ?? Date.now;
  let lastFrom: number | undefined;
  let owed: number | undefined;
  const ticks = startSerialTicks(
    async () => {
      if (!options.holds()) return;
      const started = now();
      const owedNow = owed;
      await options.backstop(owedNow === undefined ? lastFrom : Math.min(owedNow, lastFrom ?? owedNow));
      // Only a read that finished moves the watermark: a failed one is read again from the same point.
      lastFrom = started - BACKSTOP_OVERLAP_MS;
      // What was owed before this read is read; a debt noted during it is still owed.
      if (owed === owedNow) owed = undefined;
    },
    { everyMs: options.everyMs, logger: options.logger, failure: 'Salesforce Pub/Sub backstop failed' },
  );
  return Object.assign(ticks, {
    reachBack(from: number) {
      owed = owed === undefined ? from : Math.min(owed, from);
    },
  });
}
