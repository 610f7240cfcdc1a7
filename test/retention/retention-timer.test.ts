import { expect, it } from 'vitest';

import { DAY_MS } from '../../src/retention/retention-pass.ts';
import { type RetentionOptions, startRetention } from '../../src/retention/retention-timer.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/types.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { captureLogs } from '../support/log-capture.ts';
import { type Engine, openRealStore, type RealStore } from '../support/real-store.ts';
import { describeEachEngine } from '../support/stored-state.ts';
import { rowCounts } from './support/references.ts';

/*
 * Retention as the bridge runs it: a check on a timer, one instance at a time by a lease in the
 * store, a pass when one is due, one log line per pass, nothing at all with RETENTION_DAYS=0; and
 * the acks of senders go on while a pass removes thousands of rows.
 */

const cleanups = cleanupAfterEach();

async function open(engine: Engine): Promise<RealStore> {
  const real = await openRealStore(engine, 'retention_timer');
  cleanups.push(real.close);
  return real;
}

/** `count` stored events that made no job (their mapping is not the point), in messages of up to 50. */
async function storeEvents(store: Store, prefix: string, count: number): Promise<void> {
  for (let first = 0; first < count; first += 50) {
    const keys = Array.from({ length: Math.min(50, count - first) }, (_, index) => `${prefix}-${first + index}`);
    await store.ingest({ source: 'salesforce', rawPayload: `<n>${prefix}</n>`, events: keys.map((dedupeKey) => ({ dedupeKey, parsedPayload: {} })) }, () => []);
  }
}

function cutoffNow(): number {
  const mark = Date.now() + 1;
  while (Date.now() < mark) {
    // The next row must be stamped at or after the mark: wait out the current millisecond.
  }
  return mark;
}

function runner(store: Store, cutoff: number, overrides: Partial<RetentionOptions> = {}) {
  const logs = captureLogs({ level: 'info' });
  const retention = startRetention({
    store,
    leases: store.channels,
    logger: logs.logger,
    days: 1,
    rematchDays: 0,
    now: () => cutoff + DAY_MS,
    pass: { pauseMs: 0 },
    ...overrides,
  });
  cleanups.push(() => retention.stop());
  return { retention, logs };
}

describeEachEngine('retention on its timer', (engine) => {
  it('when two instances share the store, then only the one holding the lease runs passes; the other takes over once it stops', async () => {
    // Arrange
    const { store, url } = await open(engine);
    const other = await openStore(url, { poolMax: 2 });
    cleanups.push(() => other.close());
    await storeEvents(store, 'old', 3);
    const cutoff = cutoffNow();
    const first = runner(store, cutoff, { owner: 'first', intervalMs: 0 });
    const second = runner(other, cutoff, { owner: 'second', intervalMs: 0 });

    // Act
    const firstPass = await first.retention.tick();
    const whileHeld = await second.retention.tick();
    await first.retention.stop();
    const afterStop = await second.retention.tick();

    // Assert
    expect(firstPass?.removed).toMatchObject({ events: 3, messages: 1 });
    expect(whileHeld).toBeUndefined();
    expect(afterStop?.removed).toMatchObject({ events: 0, messages: 0 });
    const [line] = first.logs.lines().filter((logged) => logged.message === 'retention pass');
    expect(line).toMatchObject({ level: 'info', removed: { events: 3, messages: 1 }, more: false, cutoff: new Date(cutoff).toISOString() });
    expect(line?.durationMs).toBeTypeOf('number');
    expect(await rowCounts(url)).toMatchObject({ inbound_events: 0, inbound_messages: 0 });
  });

  it('when a pass stops at its bound, then the next check runs another at once; once a pass finished, none is due before the interval', async () => {
    // Arrange: three messages of one event each; passes of five batches of one row (the least: one per walk, one for the touches, one more).
    const { store, url } = await open(engine);
    for (const prefix of ['a', 'b', 'c']) await storeEvents(store, prefix, 1);
    const cutoff = cutoffNow();
    const { retention } = runner(store, cutoff, { pass: { pauseMs: 0, batchRows: 1, maxBatches: 5 } });

    // Act: checks until one finds nothing due.
    const passes = [];
    for (let pass = await retention.tick(); pass !== undefined; pass = await retention.tick()) passes.push(pass);

    // Assert: the events went in the first pass, the messages in the second, the activity roll-ups
    // after them (one row a batch), and the last pass found nothing left.
    const shape = passes.map((pass) => [pass.removed.events, pass.removed.messages, pass.more]);
    expect(shape.slice(0, 2)).toEqual([
      [3, 0, true],
      [0, 3, true],
    ]);
    expect(shape.at(-1)).toEqual([0, 0, false]);
    expect(passes.slice(1, -1).every((pass) => pass.more)).toBe(true);
    expect(passes.reduce((sum, pass) => sum + pass.removed.events + pass.removed.messages, 0)).toBe(6);
    expect(await rowCounts(url)).toMatchObject({ inbound_events: 0, inbound_messages: 0 });
  });

  it('when RETENTION_DAYS is 0, then no pass ever runs and every row stays', async () => {
    // Arrange
    const { store, url } = await open(engine);
    await storeEvents(store, 'kept', 2);
    const cutoff = cutoffNow();
    const { retention, logs } = runner(store, cutoff, { days: 0, intervalMs: 0, now: () => cutoff + 3650 * DAY_MS });

    // Act
    const pass = await retention.tick();

    // Assert
    expect(pass).toBeUndefined();
    expect(await store.retention.lastPass()).toBeUndefined();
    expect(await rowCounts(url)).toMatchObject({ inbound_events: 2, inbound_messages: 1 });
    expect(logs.lines().map((line) => line.message)).toEqual(['retention off: RETENTION_DAYS=0 keeps every stored row']);
  });

  it('when senders keep sending while a pass removes thousands of old rows, then every ingest is stored and acknowledged', async () => {
    // Arrange: 3000 old events.
    const { store, url } = await open(engine);
    await storeEvents(store, 'old', 3000);
    const cutoff = cutoffNow();
    const { retention } = runner(store, cutoff, { pass: { batchRows: 400 } });

    // Act: 300 messages in waves of 10 while the pass runs, each made a map-event job.
    let passEnded = false;
    const passing = retention.tick().finally(() => (passEnded = true));
    const acks: number[] = [];
    let acksDuringPass = 0;
    for (let wave = 0; wave < 30; wave += 1) {
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          store.ingest({ source: 'salesforce', rawPayload: '<n/>', events: [{ dedupeKey: `new-${wave}-${index}`, parsedPayload: {} }] }, (event) => [
            { kind: 'map-event', payload: { eventId: event.id }, runAt: Date.now() + DAY_MS },
          ]),
        ),
      );
      acks.push(...results.map((result) => result.created.length));
      if (!passEnded) acksDuringPass += results.length;
    }
    const pass = await passing;

    // Assert: all 300 stored with their jobs, many while the pass ran; the pass took the old rows only.
    expect(acks).toEqual(Array.from({ length: 300 }, () => 1));
    expect(acksDuringPass).toBeGreaterThan(0);
    expect(pass?.removed).toMatchObject({ events: 3000, messages: 60 });
    expect(await rowCounts(url)).toMatchObject({ inbound_events: 300, inbound_messages: 300, jobs: 300 });
  });
});
