import { describe, expect, it } from 'vitest';

import { createGroupCommit, LAZY_FLUSH_SIZE } from '../../src/store/sqlite/group-commit.ts';
import { useGroupCommitDb } from './support/group-commit-db.ts';

describe('sqlite group commit', () => {
  const db = useGroupCommitDb();
  const { committedRows, insert } = db;

  it('when a WAL sync is given, then durable calls settle only after it and bookkeeping calls at once, all without synchronous=FULL', async () => {
    let finishSync!: () => void;
    const requests: number[] = [];
    const walSync = {
      request: () => {
        requests.push(requests.length);
        return new Promise<void>((resolve) => (finishSync = resolve));
      },
      inFlight: () => undefined,
      close: async () => {},
    };
    const batches = createGroupCommit(db.writer, walSync);
    const settled: string[] = [];

    const durable = batches.run(() => insert(1)).then(() => settled.push('durable'));
    const bookkeeping = batches
      .run(() => db.writer.prepare('PRAGMA synchronous').get()?.synchronous, { durable: false })
      .then((mode) => {
        settled.push('bookkeeping');
        return mode;
      });
    const mode = await bookkeeping;
    const drained = batches.drain().then(() => settled.push('drained'));
    await new Promise((resolve) => setTimeout(resolve, 20));

    expect(mode).toBe(1);
    expect(settled).toEqual(['bookkeeping']);
    expect(committedRows()).toEqual([1]);
    finishSync();
    await Promise.all([durable, drained]);
    expect(settled).toEqual(['bookkeeping', 'durable', 'drained']);
    expect(requests).toHaveLength(1);
  });

  it('when the WAL sync fails, then the durable calls of that batch reject, so nothing is acknowledged', async () => {
    const batches = createGroupCommit(db.writer, { request: () => Promise.reject(new Error('EIO')), inFlight: () => undefined, close: async () => {} });

    const outcome = await batches
      .run(() => insert(7))
      .then(
        () => 'resolved',
        (error: Error) => error.message,
      );

    expect(outcome).toBe('EIO');
  });

  describe('while a WAL sync is in flight', () => {
    // A WAL sync whose one running fsync the test ends by hand; every later request resolves at once.
    const heldSync = () => {
      let finish!: () => void;
      let running: Promise<void> | undefined = new Promise<void>((resolve) => (finish = resolve)).then(() => {
        running = undefined;
      });
      let requests = 0;
      return {
        walSync: {
          request: async () => void (requests += 1),
          inFlight: () => running,
          close: async () => {},
        },
        finish: () => finish(),
        requests: () => requests,
      };
    };
    const turns = async (count: number) => {
      for (let turn = 0; turn < count; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    };

    it('when durable calls arrive over several turns, then they wait for it to end and commit together, then settle after their own sync', async () => {
      const sync = heldSync();
      const batches = createGroupCommit(db.writer, sync.walSync);
      const seen: number[] = [];
      const durableInsert = (x: number) => batches.run(() => (insert(x), seen.push(committedRows().length), x));

      const calls = [durableInsert(1)];
      await turns(2);
      calls.push(durableInsert(2));
      await turns(2);
      const committedWhileSyncing = committedRows();
      sync.finish();
      const values = await Promise.all(calls);

      expect(committedWhileSyncing).toEqual([]);
      // Neither saw the other committed: one transaction, made after the running sync ended.
      expect(seen).toEqual([0, 0]);
      expect(values).toEqual([1, 2]);
      expect(committedRows()).toEqual([1, 2]);
      expect(sync.requests()).toBe(1);
    });

    it.each([
      ['a prompt bookkeeping call', 'at the next turn', { durable: false }],
      ['a lazy call', 'within the lazy window, however long the sync takes', { durable: false, lazy: true }],
    ])('when %s joins held durable calls, then the batch commits %s', async (_call, _when, joining) => {
      const sync = heldSync();
      const batches = createGroupCommit(db.writer, sync.walSync);

      const durable = batches.run(() => insert(1));
      await batches.run(() => insert(2), joining);
      const committedAfterJoin = committedRows();
      sync.finish();
      await durable;

      expect(committedAfterJoin).toEqual([1, 2]);
    });

    it('when the held batch reaches the batch size, then it commits without waiting for the sync', async () => {
      const sync = heldSync();
      const batches = createGroupCommit(db.writer, sync.walSync);

      const calls = Array.from({ length: LAZY_FLUSH_SIZE }, (_, x) => batches.run(() => insert(x)));
      await turns(2);
      const committedBeforeSyncEnded = committedRows().length;
      sync.finish();
      await Promise.all(calls);

      expect(committedBeforeSyncEnded).toBe(LAZY_FLUSH_SIZE);
    });
  });
});
