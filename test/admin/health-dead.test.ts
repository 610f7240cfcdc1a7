import { afterEach, describe, expect, it } from 'vitest';

import { healthReport } from '../../src/admin/health.ts';
import { createHealthRegistry } from '../../src/core/health-registry.ts';
import { captureLogs } from '../support/log-capture.ts';
import { ENGINES, openRealStore, type RealStore } from '../support/real-store.ts';
import { executeSql } from '../support/stored-state.ts';

/*
 * Momentum's health read from the store (docs/operations.md, "Is it healthy?"): a delivery that
 * ended dead since this instance started makes Momentum failing while this instance made no call,
 * counted from when it died, not from when it was made.
 */

const STARTED = Date.parse('2026-11-27T12:00:00Z');
const HOUR = 3_600_000;

describe.each(ENGINES)('Momentum health from dead deliveries $title', ({ engine, skip }) => {
  let opened: RealStore | undefined;
  afterEach(async () => {
    await opened?.store.close();
    await opened?.drop();
    opened = undefined;
  });

  it.skipIf(skip)(
    'when a delivery made before the start died after it, and a younger one died before it, then Momentum is failing and the one that died since the start is named',
    async () => {
      // Arrange: #1 made at 09:00, retried until it died at 15:00; #2 made at 10:00, dead at 10:01.
      opened = await openRealStore(engine, 'health_dead');
      const { store } = opened;
      const [late, early] = await store.enqueue([
        { kind: 'remap', payload: { n: 1 }, coalesceKey: 'meeting:a' },
        { kind: 'remap', payload: { n: 2 }, coalesceKey: 'meeting:b' },
      ]);
      const died = async (id: number, createdAt: number, diedAt: number, error: string) =>
        executeSql(opened!.url, `UPDATE jobs SET state = 'dead', created_at = $1, updated_at = $2, last_error = $3 WHERE id = $4`, [
          createdAt,
          diedAt,
          error,
          id,
        ]);
      await died(late!.id, STARTED - 3 * HOUR, STARTED + 3 * HOUR, 'retries exhausted: HTTP 503');
      await died(early!.id, STARTED - 2 * HOUR, STARTED - 2 * HOUR + 60_000, 'HTTP 400');
      const registry = createHealthRegistry();
      registry.declare('momentum', { label: 'Momentum', on: true });
      const instance = { id: 'instance-a', host: 'host', pid: 1, version: '1.0.0', startedAt: STARTED };

      // Act
      const answer = await healthReport(
        store,
        { readiness: [], registry, instance, momentum: { sandbox: false, budget: 'momentum' }, logger: captureLogs().logger },
        STARTED + 4 * HOUR,
      );

      // Assert
      expect(answer.integrations.find((entry) => entry.name === 'momentum')).toMatchObject({ state: 'failing', lastError: 'retries exhausted: HTTP 503' });
      expect(answer.momentum.lastDead).toEqual({ deliveryId: late!.id, at: new Date(STARTED + 3 * HOUR).toISOString(), error: 'retries exhausted: HTTP 503' });
    },
  );
});
