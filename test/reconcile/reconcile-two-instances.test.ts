import { describe, expect, it } from 'vitest';

import { openStore } from '../../src/store/open-store.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { TEST_DATABASE_URL } from '../support/real-store.ts';
import { expectSettled, queryRows, waitSettled } from '../support/stored-state.ts';
import { ACME, ACME_BUYER, ACME_DEAL, meetingStart, plusMinutes, reconcileWorld, REP } from './support/reconcile-world.ts';

/*
 * Reconcile with several bridges on one PostgreSQL: the walk is started by the holder of a lease,
 * so Momentum is listed once and each meeting remapped once, however many instances run.
 */

const cleanups = cleanupAfterEach();

describe.skipIf(TEST_DATABASE_URL === undefined)(
  `reconcile with two bridges on one PostgreSQL${TEST_DATABASE_URL ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
  () => {
    it('when two bridges that reconcile start at once, then Momentum is listed once and the meeting remapped once', async () => {
      // Arrange
      const world = await reconcileWorld('postgres', cleanups);
      const start = meetingStart();
      world.momentum.meetings.hold({
        id: 601,
        startTime: start,
        endTime: plusMinutes(start, 30),
        host: { email: REP },
        attendees: [{ email: ACME_BUYER, isInternal: false }],
        salesforceAccountId: ACME,
      });
      // The store's migrations run once, before both start at once.
      await (await openStore(world.database.url, { poolMax: 1 })).close();

      // Act
      const [one] = await Promise.all([world.start({ reconcile: true }), world.start({ reconcile: true })]);
      await world.momentum.waitFor(2, 15_000);
      // Both bridges' first ticks have run (the second found the lease taken, or the walk done).
      await new Promise((resolve) => setTimeout(resolve, 500));
      await waitSettled(one!.databaseUrl);

      // Assert
      expect(world.momentum.requests.map((seen) => `${seen.method} ${seen.path}`)).toEqual(['GET /v1/meetings', 'POST /v1/meeting/remap']);
      expect(world.momentum.requests[1]!.body).toMatchObject({ meetingDetails: { momentumMeetingId: 601 }, salesforceRecords: { opportunityId: ACME_DEAL } });
      expect(await queryRows(one!.databaseUrl, `SELECT kind, state FROM jobs WHERE kind IN ('reconcile', 'remap') ORDER BY id`)).toEqual([
        { kind: 'reconcile', state: 'succeeded' },
        { kind: 'remap', state: 'succeeded' },
      ]);
      await expectSettled(one!.databaseUrl);
    });
  },
);
