import { runRetentionPass } from '../../src/retention/retention-pass.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { RetentionPass } from '../../src/store/retention-types.ts';
import { benchLogger } from '../lib/null-logger.ts';
import type { AckSample } from './live-traffic.ts';

/**
 * The steady-state retention pass beside live traffic: a year of data with RETENTION_DAYS=364 and
 * RETENTION_MEETING_DAYS=364 has exactly its oldest day to remove, the rows a daily pass removes at
 * this traffic once the store has reached its steady size (meetings last touched that day are at rest). The pass
 * runs from the benchmark's process on the bridge's database (for PostgreSQL what another
 * instance holding the lease does; for SQLite a second writer on the file, which waits for the
 * bridge's write lock as the bridge waits for its own), bounded like the bridge's passes, while
 * acks keep arriving; the acks are timed until the pass ends (at least `minMs`).
 */

export const RETENTION_PHASE_DAYS = 364;

export interface RetentionPhase {
  pass: RetentionPass;
  acks: AckSample[];
}

export async function retentionPhase(
  databaseUrl: string,
  yearEnd: number,
  acksDuring: (going: () => boolean) => Promise<AckSample[]>,
  minMs = 5000,
): Promise<RetentionPhase> {
  const store = await openStore(databaseUrl, { logger: benchLogger('warn') });
  try {
    const started = performance.now();
    const passing = runRetentionPass({
      store: store.retention,
      now: yearEnd,
      days: RETENTION_PHASE_DAYS,
      meetingDays: RETENTION_PHASE_DAYS,
      rematchDays: 30,
      previous: undefined,
      maxBatches: 100_000,
    });
    let ended = false;
    void passing.finally(() => {
      ended = true;
    });
    // Acks go on while the pass runs, and for minMs at least, so a short pass still has a sample.
    const [pass, acks] = await Promise.all([passing, acksDuring(() => !ended || performance.now() < started + minMs)]);
    return { pass, acks };
  } finally {
    await store.close();
  }
}
