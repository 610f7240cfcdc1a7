import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

import type { Logger } from '../core/logger.ts';
import { startSerialTicks } from '../core/serial-ticks.ts';
import type { ChannelStore } from '../store/channel-store.ts';
import type { Retention, RetentionPass } from '../store/types.ts';
import { runRetentionPass } from './retention-pass.ts';

export interface RetentionOptions {
  store: Retention;
  /** The singleton leases (the ChannelStore holds them for every upkeep). */
  leases: Pick<ChannelStore, 'tryLease' | 'releaseLease'>;
  logger: Logger;
  /** RETENTION_DAYS; 0 keeps everything and starts nothing. */
  days: number;
  /** RETENTION_MEETING_DAYS (retention-pass.ts); 0 keeps a meeting's kept state whatever its age. */
  meetingDays?: number;
  rematchDays: number;
  /** A pass this long after the last one that finished its walks (default an hour). */
  intervalMs?: number;
  /** How often an instance checks whether a pass is due (default a minute); also the wait after a start. */
  checkEveryMs?: number;
  now?: () => number;
  owner?: string;
  /** Batch size, bound and pause of each pass (retention-pass.ts); tests make them small. */
  pass?: { batchRows?: number; maxBatches?: number; pauseMs?: number };
}

export interface RetentionRunner {
  /** One check now: runs a pass when one is due and this instance holds the lease; the pass, else undefined. */
  tick(): Promise<RetentionPass | undefined>;
  stop(): Promise<void>;
}

const LEASE = 'retention';
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

/**
 * Retention on a timer, in one instance at a time: a check every minute takes (or extends) a lease
 * in the store, so with several instances on one PostgreSQL only the holder runs passes, and it
 * renews the lease between batches. A pass is due an hour after the last one that finished (or at
 * once after one that stopped at its bound); the first check comes a minute after the start. The
 * last pass is kept in the store (RetentionStore.lastPass), so a restart neither repeats a pass
 * nor loses where the walks stood. One log line per pass.
 */
export function startRetention(options: RetentionOptions): RetentionRunner {
  const { store, leases, logger, days } = options;
  if (days === 0) {
    logger.info('retention off: RETENTION_DAYS=0 keeps every stored row');
    return { tick: async () => undefined, stop: async () => undefined };
  }
  const now = options.now ?? Date.now;
  const owner = options.owner ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const intervalMs = options.intervalMs ?? HOUR_MS;
  const checkEvery = options.checkEveryMs ?? MINUTE_MS;
  const leaseMs = 3 * checkEvery;
  let stopped = false;

  // Renewed between batches once a third of it has passed: a long pass keeps it, a dead instance loses it.
  let renewedAt = 0;
  const holdLease = async (): Promise<boolean> => {
    const at = now();
    if (at - renewedAt < leaseMs / 3) return true;
    const held = await leases.tryLease(LEASE, owner, leaseMs, at);
    if (held) renewedAt = at;
    return held;
  };

  async function round(): Promise<RetentionPass | undefined> {
    renewedAt = 0;
    if (stopped || !(await holdLease())) return undefined;
    const at = now();
    const previous = await store.retention.lastPass();
    if (previous !== undefined && !previous.more && at - previous.at < intervalMs) return undefined;
    const pass = await runRetentionPass({
      ...options.pass,
      store: store.retention,
      now: at,
      days,
      meetingDays: options.meetingDays ?? 0,
      rematchDays: options.rematchDays,
      previous,
      keepGoing: async () => !stopped && (await holdLease()),
    });
    logger.info('retention pass', {
      cutoff: new Date(pass.cutoff).toISOString(),
      removed: pass.removed,
      durationMs: pass.durationMs,
      batches: pass.batches,
      more: pass.more,
    });
    return pass;
  }

  // Checks never overlap: a long pass makes the next check wait, not pile up.
  const ticks = startSerialTicks(round, { everyMs: checkEvery, logger, failure: 'retention pass failed' });

  return {
    tick: ticks.tick,
    async stop() {
      stopped = true;
      await ticks.stop();
      await leases.releaseLease(LEASE, owner).catch(() => undefined);
    },
  };
}
