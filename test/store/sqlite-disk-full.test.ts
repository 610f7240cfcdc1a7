import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DatabaseSync } from 'node:sqlite';

import { describe, expect, it } from 'vitest';

import { openStore } from '../../src/store/open-store.ts';
import { watchSqliteConnectionsForTests } from '../../src/store/sqlite/store.ts';
import { diskFailureReason, PROBE_INTERVAL_MS } from '../../src/store/sqlite/write-health.ts';
import type { Store } from '../../src/store/types.ts';
import { cleanupAfterEach } from '../support/cleanups.ts';
import { captureLogs, type LogCapture } from '../support/log-capture.ts';
import { waitFor } from '../support/wait-for.ts';
import { job } from './conformance-fixture.ts';

/*
 * A full disk without filling one: PRAGMA max_page_count on the engine's own connection (it is per
 * connection) makes every write that needs a new page fail with SQLite's genuine SQLITE_FULL,
 * "database or disk is full". Set to 1 it stops at the pages the database has.
 */

const cleanups = cleanupAfterEach();

interface DiskFullStore {
  store: Store;
  file: string;
  logs: LogCapture;
  fillDisk: () => void;
  freeSpace: () => void;
}

async function openDiskFullStore(): Promise<DiskFullStore> {
  const dir = mkdtempSync(path.join(tmpdir(), 'store-diskfull-'));
  const file = path.join(dir, 'bridge.db');
  let connection: DatabaseSync | undefined;
  const stopWatching = watchSqliteConnectionsForTests((db, location) => {
    if (location === file) connection = db;
  });
  const logs = captureLogs();
  const store = await openStore(`sqlite:${file}`, { logger: logs.logger });
  stopWatching();
  cleanups.push(
    () => rmSync(dir, { recursive: true, force: true }),
    () => store.close(),
  );
  return {
    store,
    file,
    logs,
    // VACUUM first: pages a migration freed (dropped tables, indexes) would otherwise take small writes.
    fillDisk: () => void connection!.exec('VACUUM; PRAGMA max_page_count = 1'),
    freeSpace: () => void connection!.exec('PRAGMA max_page_count = 1073741823'),
  };
}

/** Jobs with payloads large enough to need new pages at once. */
const bulky = (count: number) => Array.from({ length: count }, (_, index) => job({ payload: { index, filler: 'x'.repeat(3000) } }));

const walSize = (file: string) => statSync(`${file}-wal`).size;

describe('sqlite store on a full disk', () => {
  it('when a write fails because the disk is full, then the ping rejects naming the failure while reads still answer, and nothing of the write is stored', async () => {
    const { store, fillDisk, logs } = await openDiskFullStore();
    const [before] = await store.enqueue([job()]);

    fillDisk();
    const failed = await store.enqueue(bulky(4)).then(
      () => undefined,
      (error: unknown) => error,
    );

    expect(failed).toMatchObject({ errcode: 13, errstr: 'database or disk is full' });
    await expect(store.ping()).rejects.toMatchObject({
      code: 'store_cannot_write',
      status: 503,
      message: expect.stringMatching(/^cannot write: database or disk is full \(since \d{4}-\d\d-\d\dT[\d:.]+Z\)$/),
    });
    expect((await store.getJob(before!.id))?.state).toBe('pending');
    expect((await store.stats()).counts).toEqual([expect.objectContaining({ kind: job().kind, state: 'pending', count: 1 })]);
    expect(logs.lines().filter((line) => line.message === 'store cannot write')).toEqual([
      expect.objectContaining({ level: 'error', reason: 'database or disk is full' }),
    ]);
  });

  it('when space returns, then the ping resolves by itself within a few seconds, the WAL is truncated and writes work again', async () => {
    const { store, file, fillDisk, freeSpace, logs } = await openDiskFullStore();
    await store.enqueue([job()]);
    fillDisk();
    await expect(store.enqueue(bulky(4))).rejects.toMatchObject({ errcode: 13 });
    // Probes keep failing while the disk stays full.
    await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS + 500));
    await expect(store.ping()).rejects.toMatchObject({ code: 'store_cannot_write' });
    const walWhileFull = walSize(file);

    freeSpace();
    await waitFor(
      'the ping to resolve',
      () =>
        store.ping().then(
          () => true,
          () => false,
        ),
      3 * PROBE_INTERVAL_MS,
    );
    const walAfterRecovery = walSize(file);
    const stored = await store.enqueue(bulky(4));

    expect(walWhileFull).toBeGreaterThan(0);
    expect(walAfterRecovery).toBe(0);
    expect(stored).toHaveLength(4);
    expect(logs.lines().find((line) => line.message === 'store can write again')).toMatchObject({
      level: 'info',
      reason: 'database or disk is full',
      walCheckpoint: { busy: 0 },
    });
  });

  it('when a write fails for another reason, then the store stays ready', async () => {
    const { store } = await openDiskFullStore();

    // A job whose event does not exist breaks the foreign key: the caller's fault, not the disk's.
    await expect(store.enqueue([job({ eventId: 987654 })])).rejects.toThrow();

    await expect(store.ping()).resolves.toBeUndefined();
  });

  it('when the store is closed while it cannot write, then close resolves and no probe runs after it', async () => {
    const { store, fillDisk, logs } = await openDiskFullStore();
    fillDisk();
    await expect(store.enqueue(bulky(4))).rejects.toMatchObject({ errcode: 13 });

    await store.close();
    await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS + 500));

    expect(logs.lines().filter((line) => line.message === 'store write probe failed')).toEqual([]);
  });
});

describe('diskFailureReason', () => {
  it('when the error is SQLITE_FULL or an SQLITE_IOERR variant, then it names SQLite’s text for the code', () => {
    expect(
      diskFailureReason(Object.assign(new Error('database or disk is full'), { code: 'ERR_SQLITE_ERROR', errcode: 13, errstr: 'database or disk is full' })),
    ).toBe('database or disk is full');
    // SQLITE_IOERR_WRITE: an extended code keeps the primary one in its low byte.
    expect(diskFailureReason(Object.assign(new Error('disk I/O error'), { code: 'ERR_SQLITE_ERROR', errcode: 778, errstr: 'disk I/O error' }))).toBe(
      'disk I/O error',
    );
  });

  it("when the WAL's fdatasync fails with ENOSPC, then the reason is the device's, without a path", () => {
    expect(diskFailureReason(Object.assign(new Error('ENOSPC: no space left on device, fdatasync'), { code: 'ENOSPC' }))).toBe('no space left on device');
  });

  it('when the error is a constraint, a busy lock or not an SQLite error, then it is no disk failure', () => {
    expect(
      diskFailureReason(Object.assign(new Error('FOREIGN KEY constraint failed'), { code: 'ERR_SQLITE_ERROR', errcode: 787, errstr: 'constraint failed' })),
    ).toBeUndefined();
    expect(
      diskFailureReason(Object.assign(new Error('database is locked'), { code: 'ERR_SQLITE_ERROR', errcode: 5, errstr: 'database is locked' })),
    ).toBeUndefined();
    expect(diskFailureReason(new Error('boom'))).toBeUndefined();
    expect(diskFailureReason(undefined)).toBeUndefined();
  });
});
