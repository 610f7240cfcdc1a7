import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { createGroupCommit, LAZY_FLUSH_MS, LAZY_FLUSH_SIZE } from '../../src/store/sqlite/group-commit.ts';

describe('sqlite group commit', () => {
  let dir: string;
  let writer: DatabaseSync;
  let reader: DatabaseSync;
  const committedRows = () =>
    reader
      .prepare('SELECT x FROM t ORDER BY x')
      .all()
      .map((row) => row.x);
  const insert = (x: number) => writer.prepare('INSERT INTO t (x) VALUES (?)').run(x);

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'group-commit-'));
    const file = path.join(dir, 'db.sqlite');
    writer = new DatabaseSync(file);
    writer.exec('PRAGMA journal_mode = WAL; CREATE TABLE t (x INTEGER NOT NULL)');
    // A second connection sees only what has been committed.
    reader = new DatabaseSync(file);
  });
  afterEach(() => {
    reader.close();
    writer.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('when calls are made in one tick, then they share one transaction and a failing one is rolled back alone', async () => {
    const batches = createGroupCommit(writer);
    let seenByOtherConnectionDuringBatch: unknown[] = [];

    const outcomes = Promise.allSettled([
      batches.run(() => insert(1)),
      batches.run(() => {
        insert(2);
        throw new Error('call two fails');
      }),
      batches.run(() => {
        insert(3);
        seenByOtherConnectionDuringBatch = committedRows();
        return 'three';
      }),
    ]);
    const settled = await outcomes;

    expect(seenByOtherConnectionDuringBatch).toEqual([]);
    expect(settled.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(settled[1]).toMatchObject({ reason: { message: 'call two fails' } });
    expect(settled[2]).toMatchObject({ value: 'three' });
    expect(committedRows()).toEqual([1, 3]);
  });

  it('when a call resolves, then its write is already committed for other connections', async () => {
    const batches = createGroupCommit(writer);

    const visibleOnResolve = await batches.run(() => insert(7)).then(() => committedRows());

    expect(visibleOnResolve).toEqual([7]);
  });

  it('when a batch of one fails, then it is rolled back and the next batch still commits', async () => {
    const batches = createGroupCommit(writer);

    await expect(
      batches.run(() => {
        insert(1);
        throw new Error('nope');
      }),
    ).rejects.toThrow('nope');
    await batches.run(() => insert(2));

    expect(writer.isTransaction).toBe(false);
    expect(committedRows()).toEqual([2]);
  });

  it('when lazy calls arrive over several turns of the event loop, then they share one commit made within the lazy window', async () => {
    const batches = createGroupCommit(writer);
    const transactions: number[] = [];
    // The same connection sees its own open transaction: each call reports the rows it can see.
    const lazyInsert = (x: number) => batches.run(() => (insert(x), transactions.push(x), committedRows().length), { durable: false, lazy: true });

    const first = lazyInsert(1);
    await new Promise((resolve) => setImmediate(resolve));
    const committedAfterOneTurn = committedRows();
    const second = lazyInsert(2);
    const seenByOthers = await Promise.all([first, second]);

    expect(committedAfterOneTurn).toEqual([]);
    // Neither call saw the other's row committed: both ran in the one transaction.
    expect(seenByOthers).toEqual([0, 0]);
    expect(committedRows()).toEqual([1, 2]);
    expect(LAZY_FLUSH_MS).toBeLessThanOrEqual(5);
  });

  it('when a prompt call or a drain joins waiting lazy calls, then they commit at the next turn, not after the window', async () => {
    const batches = createGroupCommit(writer);
    const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

    const joined = [batches.run(() => insert(1), { durable: false, lazy: true }), batches.run(() => insert(2), { durable: false })];
    await nextTurn();
    const afterPromptCall = committedRows();
    const drainedLazy = batches.run(() => insert(3), { durable: false, lazy: true });
    const drained = batches.drain();
    await nextTurn();
    const afterDrain = committedRows();
    await Promise.all([...joined, drainedLazy, drained]);

    // A lazy timer is due LAZY_FLUSH_MS after the loop's cached time: never within the same turn.
    expect(afterPromptCall).toEqual([1, 2]);
    expect(afterDrain).toEqual([1, 2, 3]);
  });

  it('when lazy calls reach the batch size, then they flush without waiting for the window', async () => {
    const batches = createGroupCommit(writer);
    const calls = Array.from({ length: LAZY_FLUSH_SIZE }, (_, x) => batches.run(() => insert(x), { durable: false, lazy: true }));
    await new Promise((resolve) => setImmediate(resolve));

    expect(committedRows()).toHaveLength(LAZY_FLUSH_SIZE);
    await Promise.all(calls);
  });

  it('when drain is awaited, then every queued call has been committed', async () => {
    const batches = createGroupCommit(writer);
    void batches.run(() => insert(4));
    void batches.run(() => insert(5));

    await batches.drain();

    expect(committedRows()).toEqual([4, 5]);
  });

  it('when a batch holds only bookkeeping, then it commits without fsync; when it holds a durable call, then with synchronous=FULL', async () => {
    const batches = createGroupCommit(writer);
    const synchronousDuring = (durable: boolean[]) =>
      Promise.all(durable.map((flag, index) => batches.run(() => (insert(index), writer.prepare('PRAGMA synchronous').get()?.synchronous), { durable: flag })));

    const bookkeepingOnly = await synchronousDuring([false, false]);
    const mixed = await synchronousDuring([false, true]);
    const durableByDefault = await Promise.all([batches.run(() => writer.prepare('PRAGMA synchronous').get()?.synchronous)]);

    // PRAGMA synchronous: 1 = NORMAL, 2 = FULL.
    expect(bookkeepingOnly).toEqual([1, 1]);
    expect(mixed).toEqual([2, 2]);
    expect(durableByDefault).toEqual([2]);
    expect(committedRows()).toEqual([0, 0, 1, 1]);
  });

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
    const batches = createGroupCommit(writer, walSync);
    const settled: string[] = [];

    const durable = batches.run(() => insert(1)).then(() => settled.push('durable'));
    const bookkeeping = batches
      .run(() => writer.prepare('PRAGMA synchronous').get()?.synchronous, { durable: false })
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
    const batches = createGroupCommit(writer, { request: () => Promise.reject(new Error('EIO')), inFlight: () => undefined, close: async () => {} });

    const outcome = await batches
      .run(() => insert(7))
      .then(
        () => 'resolved',
        (error: Error) => error.message,
      );

    expect(outcome).toBe('EIO');
  });

  describe('when the disk is full', () => {
    // max_page_count (per connection; 1 stops at the pages the file has) fails a write needing new
    // pages with the genuine SQLITE_FULL, and SQLite then rolls back the whole transaction itself.
    const bigRow = (x: number) => writer.prepare('INSERT INTO big (x, pad) VALUES (?, ?)').run(x, 'x'.repeat(20_000));
    beforeEach(() => {
      writer.exec('CREATE TABLE big (x INTEGER NOT NULL, pad TEXT NOT NULL)');
      writer.exec('PRAGMA max_page_count = 1');
    });
    const bigRows = () =>
      reader
        .prepare('SELECT x FROM big')
        .all()
        .map((row) => row.x);

    it('when a lone call fails with SQLITE_FULL, then it rejects with that error (not the ROLLBACK that found nothing to undo)', async () => {
      const batches = createGroupCommit(writer);

      const outcome = await batches
        .run(() => bigRow(1))
        .then(
          () => undefined,
          (error: unknown) => error,
        );

      expect(outcome).toMatchObject({ errcode: 13, errstr: 'database or disk is full' });
      expect(bigRows()).toEqual([]);
    });

    it('when one call of a batch fails with SQLITE_FULL, then every call rejects with it, nothing is stored, and the next batch works once space returns', async () => {
      const failures: unknown[] = [];
      const batches = createGroupCommit(writer, undefined, (error) => failures.push(error));

      const settled = await Promise.allSettled([batches.run(() => insert(1)), batches.run(() => bigRow(2)), batches.run(() => insert(3))]);
      writer.exec('PRAGMA max_page_count = 1073741823');
      await batches.run(() => bigRow(4));

      expect(settled.map((outcome) => (outcome.status === 'rejected' ? (outcome.reason as { errcode?: number }).errcode : 'fulfilled'))).toEqual([13, 13, 13]);
      expect(failures).toHaveLength(3);
      expect(committedRows()).toEqual([]);
      expect(bigRows()).toEqual([4]);
    });

    it('when calls succeed or fail for their own reasons, then onFailure sees only the failures', async () => {
      writer.exec('PRAGMA max_page_count = 1073741823');
      const failures: unknown[] = [];
      const batches = createGroupCommit(writer, undefined, (error) => failures.push(error));
      const own = new Error('the caller’s own');

      await Promise.allSettled([
        batches.run(() => insert(1)),
        batches.run(() => {
          throw own;
        }),
      ]);
      await batches.run(() => insert(2));

      expect(failures).toEqual([own]);
      expect(committedRows()).toEqual([1, 2]);
    });
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
      const batches = createGroupCommit(writer, sync.walSync);
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
      const batches = createGroupCommit(writer, sync.walSync);

      const durable = batches.run(() => insert(1));
      await batches.run(() => insert(2), joining);
      const committedAfterJoin = committedRows();
      sync.finish();
      await durable;

      expect(committedAfterJoin).toEqual([1, 2]);
    });

    it('when the held batch reaches the batch size, then it commits without waiting for the sync', async () => {
      const sync = heldSync();
      const batches = createGroupCommit(writer, sync.walSync);

      const calls = Array.from({ length: LAZY_FLUSH_SIZE }, (_, x) => batches.run(() => insert(x)));
      await turns(2);
      const committedBeforeSyncEnded = committedRows().length;
      sync.finish();
      await Promise.all(calls);

      expect(committedBeforeSyncEnded).toBe(LAZY_FLUSH_SIZE);
    });
  });
});
