import { afterEach, describe, expect, it } from 'vitest';

import type { SerialTicks } from '../../../src/core/serial-ticks.ts';
import { BACKSTOP_OVERLAP_MS, startPeriodicBackstop } from '../../../src/salesforce/pubsub/periodic-backstop.ts';
import { captureLogs } from '../../support/log-capture.ts';

/*
 * The periodic SystemModstamp backstop of a Pub/Sub channel (docs/operations.md, Salesforce
 * Pub/Sub): only the lease holder reads, and each read starts where the last one began, a minute
 * earlier.
 */

const running: Array<SerialTicks<void>> = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((ticks) => ticks.stop()));
});

/** A backstop holding the lease, on a clock the test moves, recording where each read starts. */
function recordingBackstop(start: number) {
  const clock = { now: start };
  const reads: Array<number | undefined> = [];
  const ticks = startPeriodicBackstop({
    everyMs: 60_000,
    holds: () => true,
    backstop: async (since) => void reads.push(since),
    logger: captureLogs().logger,
    now: () => clock.now,
  });
  running.push(ticks);
  return { ticks, reads, clock };
}

describe('the periodic backstop', () => {
  it('when this instance holds the lease, then each read starts a minute before the previous one began; the first reaches one interval back', async () => {
    // Arrange: a clock the test moves.
    const { ticks, reads, clock } = recordingBackstop(1_000_000);

    // Act: three rounds, the clock moving on by an hour between them.
    await ticks.tick();
    clock.now += 3_600_000;
    await ticks.tick();
    clock.now += 3_600_000;
    await ticks.tick();

    // Assert
    expect(reads).toEqual([undefined, 1_000_000 - BACKSTOP_OVERLAP_MS, 4_600_000 - BACKSTOP_OVERLAP_MS]);
  });

  it('when another instance holds the lease, then nothing is read', async () => {
    const reads: Array<number | undefined> = [];
    const ticks = startPeriodicBackstop({
      everyMs: 60_000,
      holds: () => false,
      backstop: async (since) => void reads.push(since),
      logger: captureLogs().logger,
    });
    running.push(ticks);

    await ticks.tick();

    expect(reads).toEqual([]);
  });

  it('when a read fails, then the next starts from the same point', async () => {
    let clock = 5_000_000;
    const reads: Array<number | undefined> = [];
    let fail = false;
    const ticks = startPeriodicBackstop({
      everyMs: 60_000,
      holds: () => true,
      backstop: async (since) => {
        reads.push(since);
        if (fail) throw new Error('SOQL refused');
      },
      logger: captureLogs().logger,
      now: () => clock,
    });
    running.push(ticks);

    await ticks.tick();
    clock += 1000;
    fail = true;
    await expect(ticks.tick()).rejects.toThrow('SOQL refused');
    fail = false;
    await ticks.tick();

    expect(reads).toEqual([undefined, 5_000_000 - BACKSTOP_OVERLAP_MS, 5_000_000 - BACKSTOP_OVERLAP_MS]);
    await new Promise((resolve) => setTimeout(resolve, 5));
  });

  it('when a catch-up read is owed, then the next read reaches back to it, and the one after starts where that one began', async () => {
    // Arrange: a first read done, then a catch-up from long ago failed and left its start owed.
    const { ticks, reads, clock } = recordingBackstop(9_000_000);
    await ticks.tick();

    // Act
    ticks.reachBack(1_000);
    clock.now += 3_600_000;
    await ticks.tick();
    clock.now += 3_600_000;
    await ticks.tick();

    // Assert
    expect(reads).toEqual([undefined, 1_000, 12_600_000 - BACKSTOP_OVERLAP_MS]);
  });
});
