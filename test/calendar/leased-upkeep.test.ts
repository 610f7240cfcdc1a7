import { afterEach, describe, expect, it } from 'vitest';

import { type LeasedUpkeep, type Leases, startLeasedUpkeep } from '../../src/calendar/leased-upkeep.ts';
import { captureLogs } from '../support/log-capture.ts';

/*
 * Calendar watch upkeep in one instance at a time (docs/calendars.md, several instances): the
 * holder keeps its lease for as long as a round runs, however long that is.
 */

/** The store's singleton leases, in memory: free, expired or already the owner's is taken. */
function memoryLeases(): Leases {
  const held = new Map<string, { owner: string; until: number }>();
  return {
    async tryLease(name, owner, ttlMs, now) {
      const current = held.get(name);
      if (current !== undefined && current.owner !== owner && current.until > now) return false;
      held.set(name, { owner, until: now + ttlMs });
      return true;
    },
    async releaseLease(name, owner) {
      if (held.get(name)?.owner === owner) held.delete(name);
    },
  };
}

const running: LeasedUpkeep[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((upkeep) => upkeep.stop()));
});

describe('leased calendar upkeep', () => {
  it('when a round runs longer than the lease, then the lease is kept all along: another instance cannot take it and do the same work', async () => {
    // Arrange: a lease of 3 × 30 ms; instance a's round takes 300 ms.
    const leases = memoryLeases();
    const work: string[] = [];
    let finish!: () => void;
    const upkeep = (owner: string, slow: boolean) =>
      startLeasedUpkeep({
        lease: 'microsoft-upkeep',
        leases,
        logger: captureLogs().logger,
        owner,
        maintain: async () => {
          work.push(owner);
          if (slow) await new Promise<void>((resolve) => (finish = resolve));
        },
        backstop: async () => undefined,
        maintainEveryMs: 60_000,
        backstopEveryMs: 30,
        runAtStart: false,
      });
    const a = upkeep('a', true);
    const b = upkeep('b', false);
    running.push(a, b);

    // Act: a's round starts; b tries while it runs, past a's first lease.
    const first = a.runOnce({ backstop: false });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const byB = await b.runOnce({ backstop: false });
    finish();

    // Assert
    expect(await first).toBe(true);
    expect(byB).toBe(false);
    expect(work).toEqual(['a']);
  });
});
