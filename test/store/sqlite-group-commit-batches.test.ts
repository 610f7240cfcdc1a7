import { describe, expect, it } from 'vitest';

import { createGroupCommit, LAZY_FLUSH_MS, LAZY_FLUSH_SIZE } from '../../src/store/sqlite/group-commit.ts';
import { useGroupCommitDb } from './support/group-commit-db.ts';

describe('sqlite group commit', () => {
  const db = useGroupCommitDb();
  const { committedRows, insert } = db;

  it('when calls are made in one tick, then they share one transaction and a failing one is rolled back alone', async () => {
    const batches = createGroupCommit(db.writer);
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
    const batches = createGroupCommit(db.writer);

    const visibleOnResolve = await batches.run(() => insert(7)).then(() => committedRows());

    expect(visibleOnResolve).toEqual([7]);
  });

  it('when a batch of one fails, then it is rolled back and the next batch still commits', async () => {
    const batches = createGroupCommit(db.writer);

    await expect(
      batches.run(() => {
        insert(1);
        throw new Error('nope');
      }),
    ).rejects.toThrow('nope');
    await batches.run(() => insert(2));

    expect(db.writer.isTransaction).toBe(false);
    expect(committedRows()).toEqual([2]);
  });

  it('when lazy calls arrive over several turns of the event loop, then they share one commit made within the lazy window', async () => {
    const batches = createGroupCommit(db.writer);
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
    const batches = createGroupCommit(db.writer);
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
    const batches = createGroupCommit(db.writer);
    const calls = Array.from({ length: LAZY_FLUSH_SIZE }, (_, x) => batches.run(() => insert(x), { durable: false, lazy: true }));
    await new Promise((resolve) => setImmediate(resolve));

    expect(committedRows()).toHaveLength(LAZY_FLUSH_SIZE);
    await Promise.all(calls);
  });

  it('when drain is awaited, then every queued call has been committed', async () => {
    const batches = createGroupCommit(db.writer);
    void batches.run(() => insert(4));
    void batches.run(() => insert(5));

    await batches.drain();

    expect(committedRows()).toEqual([4, 5]);
  });

  it('when a batch holds only bookkeeping, then it commits without fsync; when it holds a durable call, then with synchronous=FULL', async () => {
    const batches = createGroupCommit(db.writer);
    const synchronousDuring = (durable: boolean[]) =>
      Promise.all(
        durable.map((flag, index) => batches.run(() => (insert(index), db.writer.prepare('PRAGMA synchronous').get()?.synchronous), { durable: flag })),
      );

    const bookkeepingOnly = await synchronousDuring([false, false]);
    const mixed = await synchronousDuring([false, true]);
    const durableByDefault = await Promise.all([batches.run(() => db.writer.prepare('PRAGMA synchronous').get()?.synchronous)]);

    // PRAGMA synchronous: 1 = NORMAL, 2 = FULL.
    expect(bookkeepingOnly).toEqual([1, 1]);
    expect(mixed).toEqual([2, 2]);
    expect(durableByDefault).toEqual([2]);
    expect(committedRows()).toEqual([0, 0, 1, 1]);
  });
});
