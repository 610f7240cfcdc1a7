import { beforeEach, describe, expect, it } from 'vitest';

import { createGroupCommit } from '../../src/store/sqlite/group-commit.ts';
import { useGroupCommitDb } from './support/group-commit-db.ts';

describe('sqlite group commit', () => {
  const db = useGroupCommitDb();
  const { committedRows, insert } = db;

  describe('when the disk is full', () => {
    // max_page_count (per connection; 1 stops at the pages the file has) fails a write needing new
    // pages with the genuine SQLITE_FULL, and SQLite then rolls back the whole transaction itself.
    const bigRow = (x: number) => db.writer.prepare('INSERT INTO big (x, pad) VALUES (?, ?)').run(x, 'x'.repeat(20_000));
    beforeEach(() => {
      db.writer.exec('CREATE TABLE big (x INTEGER NOT NULL, pad TEXT NOT NULL)');
      db.writer.exec('PRAGMA max_page_count = 1');
    });
    const bigRows = () =>
      db.reader
        .prepare('SELECT x FROM big')
        .all()
        .map((row) => row.x);

    it('when a lone call fails with SQLITE_FULL, then it rejects with that error (not the ROLLBACK that found nothing to undo)', async () => {
      const batches = createGroupCommit(db.writer);

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
      const batches = createGroupCommit(db.writer, undefined, (error) => failures.push(error));

      const settled = await Promise.allSettled([batches.run(() => insert(1)), batches.run(() => bigRow(2)), batches.run(() => insert(3))]);
      db.writer.exec('PRAGMA max_page_count = 1073741823');
      await batches.run(() => bigRow(4));

      expect(settled.map((outcome) => (outcome.status === 'rejected' ? (outcome.reason as { errcode?: number }).errcode : 'fulfilled'))).toEqual([13, 13, 13]);
      expect(failures).toHaveLength(3);
      expect(committedRows()).toEqual([]);
      expect(bigRows()).toEqual([4]);
    });

    it('when calls succeed or fail for their own reasons, then onFailure sees only the failures', async () => {
      db.writer.exec('PRAGMA max_page_count = 1073741823');
      const failures: unknown[] = [];
      const batches = createGroupCommit(db.writer, undefined, (error) => failures.push(error));
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
});
