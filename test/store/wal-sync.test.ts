import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { createWalSync } from '../../src/store/sqlite/wal-sync.ts';

describe('createWalSync', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  // A WAL file with some frames in it, in a directory removed after the test.
  const walFile = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'wal-sync-'));
    dirs.push(dir);
    const file = path.join(dir, 'db-wal');
    writeFileSync(file, 'frames');
    return file;
  };

  it('when many requests arrive while a sync is in flight, then they share the next sync and all resolve', async () => {
    const sync = createWalSync(walFile());

    const first = sync.request();
    const later = Array.from({ length: 10 }, () => sync.request());

    await expect(Promise.all([first, ...later])).resolves.toHaveLength(11);
    // The ten that came during the first sync were handed one promise: one more fsync, not ten.
    expect(new Set(later).size).toBe(1);
    expect(later[0]).not.toBe(first);
    await sync.close();
  });

  it('when a sync runs alone, then inFlight hands it out; once another is queued behind it, or none runs, then nothing', async () => {
    const sync = createWalSync(walFile());

    const idleBefore = sync.inFlight();
    const first = sync.request();
    const alone = sync.inFlight();
    const second = sync.request();
    const queuedBehind = sync.inFlight();
    await Promise.all([first, second]);
    const idleAfter = sync.inFlight();

    expect(idleBefore).toBeUndefined();
    expect(alone).toBeInstanceOf(Promise);
    await expect(alone).resolves.toBeUndefined();
    expect(queuedBehind).toBeUndefined();
    expect(idleAfter).toBeUndefined();
    await sync.close();
  });

  it('when the WAL file does not exist, then the request rejects instead of pretending the data is on disk', async () => {
    const sync = createWalSync(path.join(tmpdir(), 'no-such-dir-for-wal-sync', 'db-wal'));

    await expect(sync.request()).rejects.toThrow(/ENOENT/);
    await sync.close();
  });
});
